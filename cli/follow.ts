import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { ProgressPrinter } from './progress.js';
import { hasWorkflowPoller, pause } from './session.js';
import type { Session } from './session.js';

/** How often progress is read through queries (queries add no history events). */
export const POLL_MS = 300;
/** How long a run may go without any worker polling its task queue before the CLI says so. */
export const NO_WORKER_GRACE_MS = 3000;
const WATCH_MS = 5000;
/** How long one progress query may take: a run whose workflow task waits for a worker answers none. */
export const QUERY_TIMEOUT_MS = 3000;

/** How following a call or a turn ended. */
export type Followed<O> =
  | { kind: 'closed'; outcome: O }
  /** Ctrl-C: the CLI let go; the run goes on. */
  | { kind: 'detached' }
  /** The CLI lost the run (connection to Temporal lost, ...); the run goes on. */
  | { kind: 'lost'; error: unknown };

/** Runs one query under the abort signal of the follow and `QUERY_TIMEOUT_MS`. */
export type BoundedQuery = <T>(run: () => Promise<T>) => Promise<T>;

export interface FollowOptions<O> {
  session: Session;
  handle: WorkflowHandle;
  /** The run's task queue, watched for pollers. */
  taskQueue: string;
  /** Progress lines; absent with `--json`. */
  progress?: ProgressPrinter;
  /**
   * Reads the run's progress once into `progress` (one query at a time, through `query`); prints nothing once
   * `signal` has aborted. A failure (no worker yet, a timeout) is retried after a longer pause.
   */
  readProgress(
    handle: WorkflowHandle,
    query: BoundedQuery,
    progress: ProgressPrinter,
    signal: AbortSignal,
  ): Promise<void>;
  /** The outcome of the closed run from its history, or `undefined` if it is still running. */
  closedOutcome(): Promise<O | undefined>;
  /** Prints a warning line. */
  warn(line: string): void;
}

/**
 * Waits for a call or turn to close, reading progress meanwhile and warning while no worker polls its task
 * queue. Ctrl-C (SIGINT) detaches and never cancels the run.
 */
export async function follow<O>(options: FollowOptions<O>): Promise<Followed<O>> {
  const { session, handle } = options;
  const stop = new AbortController();
  let onSigint: () => void = () => undefined;
  const detached = new Promise<Followed<O>>((resolve) => {
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
    .then(async (): Promise<Followed<O>> => {
      const outcome = await options.closedOutcome();
      return outcome ? { kind: 'closed', outcome } : { kind: 'lost', error: new Error('still running') };
    })
    .catch((error: unknown): Followed<O> => ({ kind: 'lost', error }));
  const background = [
    options.progress ? pollProgress(options, options.progress, stop.signal) : Promise.resolve(),
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

async function pollProgress<O>(
  options: FollowOptions<O>,
  progress: ProgressPrinter,
  signal: AbortSignal,
): Promise<void> {
  const { connection } = options.session;
  // One query at a time: queries wait in a small per-workflow buffer while a workflow task is pending, and
  // the server refuses more (RESOURCE_EXHAUSTED) than it holds.
  const query: BoundedQuery = (run) =>
    connection.withAbortSignal(signal, () => connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, run));
  while (!signal.aborted) {
    let answered = false;
    try {
      await options.readProgress(options.handle, query, progress, signal);
      answered = true;
    } catch {
      // No worker has run the workflow yet, or the query timed out: the worker watch says so if it lasts.
    }
    await pause(answered ? POLL_MS : POLL_MS * 4, signal);
  }
}

async function watchWorkers<O>(options: FollowOptions<O>, signal: AbortSignal): Promise<void> {
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
