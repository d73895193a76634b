import type { WorkerTuning } from '../../../worker/worker.js';

/** Which worker a load runs on: model-retry's (`createModelRetryWorkers`) or the floor's plain one. */
export type LoadWorkerKind = 'model-retry' | 'floor';

/** One call of a load: the workflow a host starts, with its id and input. */
export interface PlannedCall {
  workflowType:
    | 'modelCallWorkflow'
    | 'userCallWorkflow'
    | 'floorCallWorkflow'
    | 'floorRetryWorkflow'
    | 'contractFloorWorkflow';
  workflowId: string;
  input: unknown;
}

/** What `worker-process.ts` is given (as a JSON file) to run a worker and drive a load with its client. */
export interface LoadWorkerSpec {
  kind: LoadWorkerKind;
  taskQueue: string;
  bundlePath: string;
  tuning: WorkerTuning;
  /** The worker asks for eager activities (the server's `system.enableActivityEagerExecution` must allow it). */
  eagerActivities: boolean;
  /** The client asks for eager workflow start (its connection is the worker's). */
  eagerStart: boolean;
  calls: PlannedCall[];
  /** Stop waiting after this long, ms. */
  timeoutMs: number;
}

/** What `worker-process.ts` is given (as a JSON file): a worker, and optionally a load (`calls`) to drive. */
export type WorkerProcessSpec = Pick<LoadWorkerSpec, 'kind' | 'taskQueue' | 'bundlePath' | 'tuning'> &
  Partial<Omit<LoadWorkerSpec, 'kind' | 'taskQueue' | 'bundlePath' | 'tuning'>>;

/** What `worker-process.ts` reports once the load ended. */
export interface LoadWorkerReport {
  /** From the first start request to the last result, ms. */
  completionMs: number;
  /** Until every start request was answered, ms. */
  startPhaseMs: number;
  /** Each call's time from its start request to its result (or failure), ms. */
  latenciesMs: number[];
  /** When each call ended (its result or failure), ms from the first start request, in order. */
  endsMs: number[];
  succeeded: number;
  failed: number;
  /** Starts the server answered with the first workflow task inline (eager start taken). */
  eagerlyStarted: number;
  /** False when the time ran out before every call ended. */
  finished: boolean;
}
