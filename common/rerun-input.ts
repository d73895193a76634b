/**
 * What a rerun workflow is asked to do: the recorded requests (each with its original answer) and the candidate
 * models each is sent to, as child model calls. Plain JSON, built by `rerunCalls` from the recorded histories.
 */
import { MAX_HISTORY_LIMIT, TEMPORAL_LIMITS } from '../policy/index.js';
import type { RetryPlan } from '../policy/index.js';
import type { Usage } from './attempt.js';
import type { RerunAnswer, RerunSkipped, RerunSource } from './rerun.js';
import type { WireRequest } from './request.js';

/** One recorded request to send again. */
export interface RerunRequest {
  source: RerunSource;
  /** The first attempt's request, as recorded (no repair's corrections, no continuation). */
  request: WireRequest;
  /** The call's structured output, when it had one (its schema goes to each candidate too). */
  output?: { schema: Record<string, unknown> };
  original: RerunAnswer;
  /** The original's attempts as billed, so the rerun can price them with the worker's prices. */
  originalAttempts: BilledAttempt[];
}

/** What one attempt was billed: its model, its reported usage and the provider's cost, when it gave one. */
export interface BilledAttempt {
  model: string;
  outcome: string;
  usage?: Usage;
  cost?: number;
}

/** The input of `rerunWorkflow`. */
export interface RerunInput {
  /** Candidate models, `provider:model`, in the order the report shows them. */
  models: string[];
  requests: RerunRequest[];
  /** Requests found but not rerun (their stored payload is gone, an embedding), carried into the report. */
  skipped?: RerunSkipped[];
  /**
   * How many child calls run at once.
   * @default 2
   */
  concurrency?: number;
  /** The retry plan of each child call; absent or `false`: one attempt each. */
  retry?: RetryPlan | false;
  /**
   * The most the whole rerun may spend, in USD, over every child call, retries included: each child holds (and is
   * given as its own `maxCostUsd`) its worst case over its whole plan, capped by what is left, until it ends. A
   * request's children start only while what was spent, what the children in flight hold and one attempt's worst
   * case of each fit; else the rerun waits for a child to end, and stops once one does not fit with none running.
   * Needs a `pricing` for every candidate model in the worker's providers file.
   */
  budgetUsd?: number;
}

/** The memo key naming the workflow ids a rerun reran (the parent's) or the request a child reruns (a child's). */
export const RERUN_MEMO_KEY = 'modelRetryRerunOf';
/** Child calls at once when `concurrency` is not given. */
export const DEFAULT_RERUN_CONCURRENCY = 2;
/** The most child calls at once. */
export const MAX_RERUN_CONCURRENCY = 100;
/**
 * The events one child call adds to the rerun's own history: its start initiated, started and completed, and the
 * workflow task (scheduled, started, completed) that takes each result in.
 */
export const RERUN_EVENTS_PER_CHILD = 6;
/** Events kept aside for the rerun's own start, end and waits. */
const RERUN_OWN_EVENTS = 1000;
/** The most child calls (requests × models) one rerun may make: its run must stay inside Temporal's event limit. */
export const MAX_RERUN_CHILDREN = Math.floor(
  (MAX_HISTORY_LIMIT.events - RERUN_OWN_EVENTS) / RERUN_EVENTS_PER_CHILD,
);
/** The failure type of a rerun whose input is refused. */
export const INVALID_RERUN_INPUT = 'InvalidRerunInput';

const MODEL = /^[^:\s]+:\S+$/;

/** The first problem of a rerun's input (`field: what to do`), or `undefined`. */
export function rerunInputProblem(input: RerunInput): string | undefined {
  if (!Array.isArray(input.models) || input.models.length === 0)
    return '`models`: give at least one candidate model (`--model provider:model`)';
  const bad = input.models.find((m) => typeof m !== 'string' || !MODEL.test(m));
  if (bad !== undefined) return `\`models\`: ${JSON.stringify(bad)} is not \`provider:model\``;
  if (new Set(input.models).size !== input.models.length) return '`models`: each candidate model once';
  const c = input.concurrency;
  if (c !== undefined && (!Number.isInteger(c) || c < 1 || c > MAX_RERUN_CONCURRENCY))
    return `\`concurrency\`: a whole number from 1 to ${MAX_RERUN_CONCURRENCY}`;
  const b = input.budgetUsd;
  if (b !== undefined && !(typeof b === 'number' && Number.isFinite(b) && b > 0))
    return '`budgetUsd`: a positive number of USD';
  const children = (input.requests?.length ?? 0) * input.models.length;
  if (children > MAX_RERUN_CHILDREN)
    return (
      `${children} child calls (${input.requests.length} requests × ${input.models.length} models) would record ` +
      `about ${children * RERUN_EVENTS_PER_CHILD} events in the rerun's one run (${RERUN_EVENTS_PER_CHILD} each), ` +
      `past Temporal's limit of ${TEMPORAL_LIMITS.historyEvents} events: at most ${MAX_RERUN_CHILDREN} child ` +
      'calls in one rerun; rerun fewer requests or models at once (`--limit`, `--call`)'
    );
  return undefined;
}
