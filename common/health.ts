/**
 * Fleet health's plain data that crosses Temporal: the health workflow's id, its signals' and query's payloads.
 * One health workflow per backend and task queue keeps the backend's breaker (see `policy/breaker.ts`).
 */
import type { AttemptOutcome, Breaker, BreakerSettings } from '../policy/index.js';

/** The health workflow's type name. */
export const HEALTH_WORKFLOW_TYPE = 'modelRetryHealthWorkflow';
/**
 * The task priority a health workflow starts with: the highest (Temporal's `priorityKey`, lower goes first), so
 * that on a server that orders a task queue by priority its few workflow tasks are not queued behind a burst of
 * the calls' own on the same queue (the fleet learns of a trip only when its workflow task runs).
 */
export const HEALTH_PRIORITY_KEY = 1;
/** Signal: a batch of attempt outcomes ({@link OutcomeBatch}). */
export const HEALTH_OUTCOMES_SIGNAL = 'modelRetryHealthOutcomes';
/** Signal: a worker asks for the half-open probe ({@link ProbeClaim}). */
export const HEALTH_CLAIM_SIGNAL = 'modelRetryHealthClaim';
/** Signal: set the backend `closed` by hand (`model-retry health reset`). */
export const HEALTH_RESET_SIGNAL = 'modelRetryHealthReset';
/** Query: the backend's {@link HealthSnapshot}. */
export const HEALTH_QUERY = 'modelRetryHealth';
/** The id prefix of every health workflow (what `model-retry health` lists). */
export const HEALTH_ID_PREFIX = 'model-retry-health:';

/** The health workflow of `backend` on `taskQueue`: `model-retry-health:<taskQueue>:<backend>`. */
export function healthWorkflowId(taskQueue: string, backend: string): string {
  return `${HEALTH_ID_PREFIX}${taskQueue}:${backend}`;
}

/** The health workflow's input (also carried across continue-as-new). */
export interface HealthInput {
  taskQueue: string;
  /** `provider:model`, or `provider` with `"scope": "provider"`. */
  backend: string;
  settings: BreakerSettings;
  /** The breaker carried from the run before (absent on the first). */
  breaker?: Breaker;
  /** The batches had from each worker, carried from the run before (absent on the first). */
  seen?: BatchesSeen;
}

/**
 * Per worker (its monitor's id), the sequence number of the latest outcome batch the health workflow has had
 * from it and when (workflow time, epoch ms). A worker forgets, from its copy, the batches a state read says the
 * workflow has, and only those: a batch still on its way is neither lost nor counted twice. Entries of workers
 * silent for {@link SEEN_KEEP_MS} are dropped.
 */
export type BatchesSeen = Record<string, { seq: number; at: number }>;

/** How long the health workflow remembers a silent worker's latest batch. */
export const SEEN_KEEP_MS = 10 * 60_000;

/** Which worker sent a batch, and its place among that worker's batches to this backend (1, 2, ...). */
export interface BatchFrom {
  worker: string;
  seq: number;
}

/** A batch of outcomes from one worker (settings ride along, so a changed providers file takes effect). */
export interface OutcomeBatch {
  outcomes: AttemptOutcome[];
  settings: BreakerSettings;
  /** Absent from workers from before it (their batches are then told apart by time). */
  from?: BatchFrom;
}

/** A worker's request for the probe: the first claim received in half-open is granted, in the query's answer. */
export interface ProbeClaim {
  id: string;
  /** When the worker asked (epoch ms). */
  at: number;
}

/** What the query answers. */
export interface HealthSnapshot {
  backend: string;
  taskQueue: string;
  settings: BreakerSettings;
  breaker: Breaker;
  /** The workflow's time when it answered (epoch ms). */
  asOf: number;
  /** The batches it has had from each worker (absent from a health workflow from before it). */
  seen?: BatchesSeen;
}
