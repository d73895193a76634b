import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { attemptsQuery, statusQuery } from '../workflows/call/call-log.js';
import { fetchDecodedHistory } from '../client/decode-history.js';
import { readCallHistory } from '../client/history-reader.js';
import { outcomeOf } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import type { ProgressPrinter } from './progress.js';
import { hasWorkflowPoller, pause } from './session.js';
import type { Session } from './session.js';

/** How often progress is read through the `status` and `attempts` queries (queries add no history events). */
export const POLL_MS = 300;
/** How long a call may go without any worker polling its task queue before the CLI says so. */
export const NO_WORKER_GRACE_MS = 3000;
const WATCH_MS = 5000;
const QUERY_TIMEOUT_MS = 3000;

/** How following a call ended. */
export type Followed =
  | { kind: 'closed'; outcome: CallOutcome }
  /** Ctrl-C: the CLI let go; the call goes on. */
  | { kind: 'detached' }
  /** The CLI lost the call (connection to Temporal lost, ...); the call goes on. */
  | { kind: 'lost'; error: unknown };

export interface FollowOptions {
  session: Session;
  handle: WorkflowHandle;
  /** The call's task queue, watched for pollers. */
  taskQueue: string;
  /** Progress lines; absent with `--json`. */
  progress?: ProgressPrinter;
  /** Prints a warning line. */
  warn(line: string): void;
}

/**
 * Waits for a call to close, reading progress meanwhile and warning while no worker polls its task queue.
 * Ctrl-C (SIGINT) detaches and never cancels the call.
 */
export async function followCall(options: FollowOptions): Promise<Followed> {
  const { session, handle } = options;
  const stop = new AbortController();
  let onSigint: () => void = () => undefined;
  const detached = new Promise<Followed>((resolve) => {
    onSigint = () => resolve({ kind: 'detached' });
    process.once('SIGINT', onSigint);
  });
  const closed = session.connection
    .withAbortSignal(stop.signal, () => handle.result())
    .then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof WorkflowFailedError)) throw error;
      },
    )
    .then(async (): Promise<Followed> => {
      const outcome = await closedOutcome(handle);
      return outcome ? { kind: 'closed', outcome } : { kind: 'lost', error: new Error('still running') };
    })
    .catch((error: unknown): Followed => ({ kind: 'lost', error }));
  const background = [
    options.progress ? pollProgress(session, handle, options.progress, stop.signal) : Promise.resolve(),
    watchWorkers(options, stop.signal),
  ];
  try {
    return await Promise.race([closed, detached]);
  } finally {
    stop.abort();
    process.off('SIGINT', onSigint);
    await Promise.allSettled(background);
  }
}

/** The outcome of a call from its history alone (no worker needed), or `undefined` while it runs. */
export async function closedOutcome(handle: WorkflowHandle): Promise<CallOutcome | undefined> {
  return outcomeOf(handle.workflowId, readCallHistory(await fetchDecodedHistory(handle)));
}

async function pollProgress(
  session: Session,
  handle: WorkflowHandle,
  progress: ProgressPrinter,
  signal: AbortSignal,
): Promise<void> {
  const { connection } = session;
  // One query at a time: queries wait in a small per-workflow buffer while a workflow task is pending, and
  // the server refuses more (RESOURCE_EXHAUSTED) than it holds.
  const query = <T>(run: () => Promise<T>) =>
    connection.withAbortSignal(signal, () => connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, run));
  while (!signal.aborted) {
    let answered = false;
    try {
      const attempts = await query(() => handle.query(attemptsQuery));
      const status = await query(() => handle.query(statusQuery));
      if (!signal.aborted) progress.update(attempts, status);
      answered = true;
    } catch {
      // No worker has run the workflow yet, or the query timed out: the worker watch says so if it lasts.
    }
    await pause(answered ? POLL_MS : POLL_MS * 4, signal);
  }
}

async function watchWorkers(options: FollowOptions, signal: AbortSignal): Promise<void> {
  const { session, taskQueue } = options;
  await pause(NO_WORKER_GRACE_MS, signal);
  let warned = false;
  while (!signal.aborted) {
    const polled = await session.connection
      .withAbortSignal(signal, () => hasWorkflowPoller(session, taskQueue))
      .catch(() => undefined);
    if (signal.aborted) return;
    if (polled === false && !warned) {
      warned = true;
      options.warn(
        `no worker is polling task queue "${taskQueue}" (namespace ${session.namespace} at ${session.address}); ` +
          `the call waits for one. Start a worker: model-retry worker --task-queue ${taskQueue} ` +
          '(or set MODEL_RETRY_TASK_QUEUE to the queue your workers poll). Still waiting; Ctrl-C detaches.',
      );
    } else if (polled === true && warned) {
      warned = false;
      options.warn(`a worker is polling task queue "${taskQueue}" now`);
    }
    await pause(WATCH_MS, signal);
  }
}
