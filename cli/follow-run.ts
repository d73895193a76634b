import type { WorkflowHandle } from '@temporalio/client';
import type { Started } from './attach.js';
import { follow } from './follow.js';
import type { Followed, FollowOptions } from './follow.js';
import type { ProgressPrinter } from './progress.js';
import { openSession, say } from './session.js';
import type { Session } from './session.js';
import { startOnce } from './start-once.js';
import type { OnceOptions } from './start-once.js';
import { followOutputs } from './stream-print.js';
import type { StreamPrinter } from './stream-print.js';

/** One `call` or `turn` run, as the command line made it: what to start or attach to, and how to print it. */
export interface RunSpec<O> {
  what: 'call' | 'turn';
  workflowId: string;
  taskQueue: string;
  json: boolean;
  /** Print the streamed deltas on stdout as they arrive. */
  stream: boolean;
  /** Checks the input against the session before anything starts (a refusal throws `UsageError`). */
  check?(session: Session): Promise<void>;
  /** Starts the workflow with these options; absent when the command only attaches (`--workflow-id` alone). */
  start?(session: Session, options: OnceOptions): Promise<WorkflowHandle>;
  attach(session: Session): Promise<Started<O>>;
  readProgress: FollowOptions<O>['readProgress'];
  closedOutcome(session: Session, handle: WorkflowHandle): Promise<O | undefined>;
  /** The line said before the outcome of a run that had already ended. */
  recorded: string;
  /** Prints the outcome (stdout: the answer or JSON; stderr: the summary) and returns the exit code. */
  finish(outcome: O, out: { progress?: ProgressPrinter; printer?: StreamPrinter }): Promise<number>;
  /** Why following stopped when the CLI lost the run. */
  lost(error: unknown): string;
}

/**
 * The shape `call` and `turn` share: start the run at most once (or attach to the one with the id), follow it
 * with progress on stderr, print its outcome. Exit codes: those of `finish`, 2/1/3 of attaching and starting,
 * 3 when the outcome is unknown (Ctrl-C detached, or the CLI lost Temporal): the run goes on.
 */
export async function followRun<O>(spec: RunSpec<O>): Promise<number> {
  const { what, workflowId, json } = spec;
  const session = await openSession();
  try {
    await spec.check?.(session);
    const start = spec.start;
    const started = start
      ? await startOnce(
          { workflowId, taskQueue: spec.taskQueue, what },
          (options) => start(session, options),
          () => spec.attach(session),
          say,
        )
      : await spec.attach(session);
    if (typeof started === 'number') return started;
    if ('outcome' in started) {
      say(spec.recorded);
      return await spec.finish(started.outcome, {});
    }
    const { handle, taskQueue } = started;
    const { printer, progress } = followOutputs(session.client, workflowId, {
      stream: spec.stream,
      json,
      say,
    });
    const warn = (line: string) => (progress ? progress.note(`model-retry: ${line}`) : say(line));
    if (!json) say(`following ${what} ${workflowId} (task queue ${taskQueue}); Ctrl-C detaches`);
    const followed = await follow({
      session,
      handle,
      taskQueue,
      ...(progress ? { progress } : {}),
      readProgress: spec.readProgress,
      closedOutcome: () => spec.closedOutcome(session, handle),
      warn,
    });
    progress?.finish();
    if (followed.kind === 'closed') {
      return await spec.finish(followed.outcome, {
        ...(progress ? { progress } : {}),
        ...(printer ? { printer } : {}),
      });
    }
    return unknownOutcome(spec, followed);
  } finally {
    await session.close();
  }
}

function unknownOutcome<O>(spec: RunSpec<O>, followed: Exclude<Followed<O>, { kind: 'closed' }>): number {
  const { what, workflowId } = spec;
  const why =
    followed.kind === 'detached'
      ? `detached (Ctrl-C does not cancel the ${what})`
      : spec.lost(followed.error);
  say(
    `${why}; ${what} ${workflowId} goes on.\n` +
      `  attach again:  model-retry ${what} --workflow-id ${workflowId}\n` +
      `  cancel it:     model-retry cancel ${workflowId}`,
  );
  if (spec.json) {
    const reason = followed.kind === 'detached' ? 'detached' : 'connection-lost';
    process.stdout.write(`${JSON.stringify({ workflowId, status: 'unknown', reason })}\n`);
  }
  return 3;
}

/** Prints an answer on stdout, ending with one newline. */
export function printAnswer(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
