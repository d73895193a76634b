import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  metricMeter,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { StopReason } from '../../policy/index.js';
import type { SearchAttributeActivities } from '../../common/search-attribute-activity.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { AttemptRecord, ModelCallFailedDetails } from '../../common/call.js';
import {
  CLASSES_MET,
  classesMet,
  isSearchAttributesReady,
  registeredOnly,
  stopSearchAttributes,
} from '../../common/search-attributes.js';
import type { SearchAttributesReady } from '../../common/search-attributes.js';
import type { SearchAttributeUpdatePair } from '@temporalio/common';

const { searchAttributesReady } = proxyLocalActivities<SearchAttributeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * The stop reason a run's error stands for: `cancelled` for the workflow's own cancellation, the reason in a
 * `ModelCallFailed`'s details; undefined for anything else (an invalid input or plan: no call was made).
 */
export function stopReasonOf(error: unknown): StopReason | undefined {
  if (isCancellation(error)) return 'cancelled';
  if (error instanceof ApplicationFailure && error.type === MODEL_CALL_FAILED) {
    return (error.details?.[0] as Partial<ModelCallFailedDetails> | undefined)?.stopReason;
  }
  return undefined;
}

/**
 * What our own workflows do once, when a run stops: set the run's search attributes (one
 * `UpsertWorkflowSearchAttributes` event, after the attempt loop) and count the stop and the waits in the
 * worker's metrics. Only the attributes the worker says are registered on the namespace are set (see
 * `readiness`): an unregistered attribute would fail the workflow task over and over, and a call that has its
 * answer must never hang on bookkeeping. When the worker has to be asked, that runs in a non-cancellable scope,
 * so a cancelled run is recorded too; the caller rethrows the cancellation afterwards. `undefined` when it is
 * done already (see `upsertWhenReady`); else the promise to wait for.
 */
export function recordStop(
  stopReason: StopReason,
  records: readonly AttemptRecord[],
): Promise<void> | undefined {
  countStop(stopReason, records);
  return upsertWhenReady(() => stopSearchAttributes(stopReason, records));
}

/**
 * Upserts the registered ones of `pairs()` (when any): at once when an attempt reported what is registered (the
 * usual case: one synchronous command, nothing to wait for, so no scope and no promise, which Temporal's sandbox
 * pays for with a stack trace each), else after asking the worker, in a non-cancellable scope. The
 * commands are the same either way, in the same order.
 */
function upsertWhenReady(pairs: () => SearchAttributeUpdatePair[]): Promise<void> | undefined {
  const upsert = (ready: SearchAttributesReady) => {
    const registered = registeredOnly(pairs(), ready);
    if (registered.length > 0) upsertSearchAttributes(registered);
  };
  if (reportedReady !== undefined) {
    upsert(reportedReady);
    return undefined;
  }
  return CancellationScope.nonCancellable(async () => upsert(await readiness()));
}

/**
 * Keeps `ModelRetryClasses` current while a call runs, so `list --class CoolingDown` finds calls still running:
 * called after each attempt, it upserts the classes met so far when `records` hold one the run's attribute does
 * not (one `UpsertWorkflowSearchAttributes` event per new class, never one per attempt). Only in runs that asked
 * for it (`trackClassesMet`): `callModel` inside a user's workflow never sets search attributes.
 */
export function noteClassesMet(records: readonly AttemptRecord[]): Promise<void> | undefined {
  if (!tracksClasses) return undefined;
  const current = workflowInfo().typedSearchAttributes.get(CLASSES_MET) ?? [];
  const met = [...new Set([...current, ...classesMet(records)])];
  if (met.length === current.length) return undefined;
  return upsertWhenReady(() => [{ key: CLASSES_MET, value: met }]);
}

/** Turns on `noteClassesMet` for this run (our own workflows only: calls and turns). */
export function trackClassesMet(): void {
  tracksClasses = true;
}

/** Whether this run keeps `ModelRetryClasses` current (module state: one per workflow run). */
let tracksClasses = false;

/** The latest word on the search attributes: an attempt's report, or the local activity's answer. */
let reportedReady: SearchAttributesReady | undefined;

/**
 * Which search attributes this run may set: as the latest attempt reported it (in its result or failure
 * details), else by asking (`searchAttributesReady`, a local activity whose answer is recorded in one marker
 * event, so a replay decides the same; asked once per run when it answers). A failed ask sets nothing.
 */
async function readiness(): Promise<SearchAttributesReady> {
  if (reportedReady !== undefined) return reportedReady;
  const asked = await searchAttributesReady().then(
    (ready) => (isSearchAttributesReady(ready) ? ready : false),
    () => undefined,
  );
  if (asked !== undefined) reportedReady = asked;
  return asked ?? false;
}

/**
 * Notes what an attempt's worker reported about the search attributes (absent when it did not know): the latest
 * report decides, and the `searchAttributesReady` local activity (one marker event) is asked only when no
 * attempt reported, e.g. a run cancelled before its first attempt.
 */
export function noteSearchAttributesReady(ready: SearchAttributesReady | undefined): void {
  if (ready !== undefined) reportedReady = ready;
}

/** Workflow metrics (emitted by the worker's runtime, never during replay). */
function countStop(stopReason: StopReason, records: readonly AttemptRecord[]): void {
  metricMeter
    .createCounter('model_retry_calls', 'calls', 'Model calls stopped, by stop reason')
    .add(1, { stop_reason: stopReason });
  const waits = metricMeter.createCounter('model_retry_waits', 'waits', 'Durable waits between attempts');
  const waitMs = metricMeter.createHistogram(
    'model_retry_wait_ms',
    'int',
    'ms',
    'Length of the durable waits between attempts',
  );
  for (const r of records) {
    if (r.retryInMs === undefined || r.retryInMs <= 0) continue;
    const tags = { action: r.failure?.action ?? 'unknown', failure_class: r.failure?.class ?? 'unknown' };
    waits.add(1, tags);
    waitMs.record(r.retryInMs, tags);
  }
}
