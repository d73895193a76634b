/**
 * Fleet health's durable state: one long-running workflow per backend and task queue
 * (`model-retry-health:<taskQueue>:<backend>`), holding the backend's breaker. Workers feed it attempt
 * outcomes in batches and probe claims through signals (never Updates: Temporal allows 10 in flight and 2,000
 * per run), and read it from its memo (`describe`, which needs no worker) or its query. A timer turns `open`
 * into `half-open` at `until`. It continues as new before its history grows large.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { atTime, claimProbe, initialBreaker, recordOutcome, resetBreaker } from '../../policy/index.js';
import type { Breaker } from '../../policy/index.js';
import {
  HEALTH_CLAIM_SIGNAL,
  HEALTH_OUTCOMES_SIGNAL,
  HEALTH_QUERY,
  HEALTH_RESET_SIGNAL,
  SEEN_KEEP_MS,
} from '../../common/health.js';
import type {
  BatchesSeen,
  HealthInput,
  HealthSnapshot,
  OutcomeBatch,
  ProbeClaim,
} from '../../common/health.js';

export const healthOutcomesSignal = defineSignal<[OutcomeBatch]>(HEALTH_OUTCOMES_SIGNAL);
export const healthClaimSignal = defineSignal<[ProbeClaim]>(HEALTH_CLAIM_SIGNAL);
/** Resets every breaker of the fleet health workflow (an operator's action). */
export const healthResetSignal = defineSignal<[]>(HEALTH_RESET_SIGNAL);
/** The fleet health workflow's breakers and what it has seen. */
export const healthQuery = defineQuery<HealthSnapshot>(HEALTH_QUERY);

/** The memo key that holds the {@link HealthSnapshot}. */
export const HEALTH_MEMO_KEY = 'modelRetryHealth';

/** Continue as new after this many events (well under Temporal's limits; the state is a few KB). */
const CONTINUE_AFTER_EVENTS = 2_000;

/** When the breaker changes by itself: an open one's `until`, a granted probe's expiry. */
function nextChangeAt(b: Breaker): number | undefined {
  if (b.phase === 'open') return b.until;
  if (b.phase === 'half-open' && b.probe !== undefined) return b.probe.grantedAt + b.coolDownMs;
  return undefined;
}

/** `seen` after a batch from `worker`: its latest sequence number, and no worker silent for `SEEN_KEEP_MS`. */
function sawBatch(seen: BatchesSeen, worker: string, seq: number, nowMs: number): BatchesSeen {
  const kept = Object.entries(seen).filter(([w, s]) => w !== worker && s.at > nowMs - SEEN_KEEP_MS);
  return Object.fromEntries([...kept, [worker, { seq: Math.max(seq, seen[worker]?.seq ?? 0), at: nowMs }]]);
}

/** One line for the Web UI's current details: state, since, until, trips, probes. */
function describeBreaker(backend: string, b: Breaker): string {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const until = b.until === undefined ? '' : `, until ${iso(b.until)}`;
  const why = b.reason === undefined || b.phase === 'closed' ? '' : ` (${b.reason})`;
  return `**${backend}**: ${b.phase}${why} since ${iso(b.since)}${until}; trips ${b.trips}, probes ${b.probes}`;
}

/** The health workflow of one backend. Runs until terminated; `model-retry health reset` closes the breaker. */
export async function modelRetryHealthWorkflow(input: HealthInput): Promise<void> {
  let settings = input.settings;
  let breaker = input.breaker ?? initialBreaker(Date.now(), settings);
  let seen: BatchesSeen = input.seen ?? {};
  let changed = true;
  const snapshot = (): HealthSnapshot => ({
    backend: input.backend,
    taskQueue: input.taskQueue,
    settings,
    breaker: atTime(breaker, Date.now()),
    asOf: Date.now(),
    seen,
  });

  setHandler(healthOutcomesSignal, (batch) => {
    settings = batch.settings;
    for (const o of batch.outcomes) breaker = recordOutcome(breaker, o, Date.now(), settings);
    if (batch.from !== undefined) seen = sawBatch(seen, batch.from.worker, batch.from.seq, Date.now());
    changed = true;
  });
  setHandler(healthClaimSignal, (claim) => {
    breaker = claimProbe(breaker, claim.id, Date.now());
    changed = true;
  });
  setHandler(healthResetSignal, () => {
    breaker = resetBreaker(breaker, Date.now(), settings);
    changed = true;
  });
  setHandler(healthQuery, snapshot);

  for (;;) {
    if (changed) {
      changed = false;
      const now = snapshot();
      upsertMemo({ [HEALTH_MEMO_KEY]: now });
      setCurrentDetails(describeBreaker(input.backend, now.breaker));
    }
    if (workflowInfo().historyLength > CONTINUE_AFTER_EVENTS || workflowInfo().continueAsNewSuggested) break;
    const at = nextChangeAt(breaker);
    const timeout = at === undefined ? undefined : Math.max(1, at - Date.now());
    const woke = await condition(() => changed, timeout);
    if (!woke) {
      breaker = atTime(breaker, Date.now());
      changed = true;
    }
  }
  await allHandlersFinished();
  await continueAsNew<typeof modelRetryHealthWorkflow>({ ...input, settings, breaker, seen });
}
