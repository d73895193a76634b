import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  metricMeter,
  proxyLocalActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { StopReason } from '../../policy/index.js';
import type { SearchAttributeActivities } from '../../common/search-attribute-activity.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { AttemptRecord, ModelCallFailedDetails } from '../../common/call.js';
import { stopSearchAttributes } from '../../common/search-attributes.js';

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
 * `UpsertWorkflowSearchAttributes` event, after the attempt loop, so the loop adds no events) and count the stop
 * and the waits in the worker's metrics. The upsert happens only when the worker says the attributes are
 * registered on the namespace: as the latest attempt reported it (in its result or failure details), else by
 * asking (`searchAttributesReady`, a local activity whose answer is recorded in one marker event, so a replay
 * decides the same). An unregistered attribute would fail the workflow task over and over,
 * and a call that has its answer must never hang on bookkeeping. Runs in a non-cancellable scope, so a
 * cancelled run is recorded too; the caller rethrows the cancellation afterwards.
 */
export async function recordStop(stopReason: StopReason, records: readonly AttemptRecord[]): Promise<void> {
  countStop(stopReason, records);
  await CancellationScope.nonCancellable(async () => {
    const ready = reportedReady ?? (await searchAttributesReady().catch(() => false));
    if (ready) upsertSearchAttributes(stopSearchAttributes(stopReason, records));
  });
}

/** The latest attempt's word on the search attributes (module state: one per workflow run). */
let reportedReady: boolean | undefined;

/**
 * Notes what an attempt's worker reported about the search attributes (absent when it did not know): when a
 * run stops, the latest report decides, and the `searchAttributesReady` local activity (one marker event) is
 * asked only when no attempt reported, e.g. a run cancelled before its first attempt.
 */
export function noteSearchAttributesReady(ready: boolean | undefined): void {
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
