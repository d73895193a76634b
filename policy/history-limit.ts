import { MB, TEMPORAL_LIMITS } from './plan.js';
import type { ResolvedPlan } from './plan.js';

/**
 * How big the run's event history is: `workflowInfo().historySize` (bytes) and `historyLength` (events), as of
 * the current workflow task. Also what one attempt added: the difference between two such readings.
 */
export interface HistorySize {
  bytes: number;
  events: number;
}

/** What the workflow knows, before an attempt, about the history that attempt would add to. */
export interface HistoryOutlook {
  /** The run's history now (`workflowInfo().historySize`, `historyLength`). */
  now: HistorySize;
  /**
   * What each earlier attempt of this call added, oldest first: the growth from the reading before it to the
   * reading before the next ({@link historyGrowth}), its wait and its workflow tasks included. Empty before the
   * first attempt.
   */
  perAttempt: readonly HistorySize[];
  /**
   * The next attempt's input as workflow code sees it, in UTF-8 bytes of its JSON: its conversation, tools and
   * settings, which are nearly all of it ({@link ATTEMPT_ROOM_BYTES} stands for the rest). Codecs run after
   * workflow code, so this is not what Temporal stores when a payload store turns a long prompt into a reference.
   */
  inputBytes: number;
  /**
   * Whether a payload store (a claim-check codec, or Temporal's external storage) replaces large values by
   * references before Temporal stores them: then `inputBytes` says nothing about the stored size, the payload
   * check is the store's, and the first attempt is estimated without its input.
   * @default false
   */
  payloadStore?: boolean;
  /**
   * With a payload store, what of the next attempt's input stays in its payload, in UTF-8 bytes: the strings up to
   * the store's threshold, the structure, and a reference (and its claim entry) for each longer string. The store
   * moves only long strings, so an input of many short ones still has to fit Temporal's payload limit. Absent:
   * not measured (the whole input fits the limit, so what stays does too).
   */
  inlineBytes?: number;
}

/**
 * What one attempt adds beside its input, used before any attempt of the call has been seen: the activity's
 * scheduled, started and closed events, a timer started and fired, three workflow tasks of three events each
 * (12 events, rounded up), and their bytes (ids, timeouts, a bounded failure message, SDK metadata).
 */
export const ATTEMPT_OVERHEAD: Readonly<HistorySize> = Object.freeze({ bytes: 8 * 1024, events: 12 });

/**
 * Room an attempt's input needs in one payload beside its conversation (ids, model, timeout, the previous
 * decision, the payload's own metadata): the same room the client leaves when it checks a call's input at
 * submission (`client/call-size.ts`), so an input it accepted is not stopped here. An input of at most
 * `TEMPORAL_LIMITS.payloadBytes` less this is scheduled.
 */
export const ATTEMPT_ROOM_BYTES = 16 * 1024;

/** What the history grew by from one reading to a later one (never negative: a reset run reads as 0). */
export function historyGrowth(before: HistorySize, after: HistorySize): HistorySize {
  return {
    bytes: Math.max(0, after.bytes - before.bytes),
    events: Math.max(0, after.events - before.events),
  };
}

/**
 * What the next attempt will add to the history: the most any earlier attempt of this call added (an attempt
 * with a wait adds more events than one at once), at least {@link ATTEMPT_OVERHEAD}. Before the first attempt,
 * its input plus the overhead (the input alone with a payload store, where the stored input is a reference).
 */
export function nextAttemptGrowth(outlook: HistoryOutlook): HistorySize {
  let { bytes, events } = ATTEMPT_OVERHEAD;
  if (outlook.perAttempt.length === 0 && outlook.payloadStore !== true) bytes += outlook.inputBytes;
  for (const seen of outlook.perAttempt) {
    bytes = Math.max(bytes, seen.bytes);
    events = Math.max(events, seen.events);
  }
  return { bytes, events };
}

const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

const PAYLOAD_STORE =
  'turn on the payload store on workers and clients (MODEL_RETRY_PAYLOAD_STORE; see docs/operations/security.md), ' +
  'so that a long prompt is stored once and each attempt carries a reference';

/**
 * Why an attempt whose input is `inputBytes` (UTF-8 JSON, as workflow code sees it) must not be scheduled: it is
 * over Temporal's payload limit (2 MB), where the server would terminate the run. `undefined` when it fits.
 */
export function payloadLimitStop(inputBytes: number): string | undefined {
  const most = TEMPORAL_LIMITS.payloadBytes - ATTEMPT_ROOM_BYTES;
  if (inputBytes <= most) return undefined;
  return (
    `the attempt's input is ${mb(inputBytes)} (${inputBytes} bytes), over Temporal's limit of ` +
    `${mb(TEMPORAL_LIMITS.payloadBytes)} on one payload, so it is not scheduled: shorten the conversation, or ` +
    PAYLOAD_STORE
  );
}

/**
 * Why an attempt must not be scheduled when, with a payload store, what stays in its input (`inlineBytes`, see
 * {@link HistoryOutlook.inlineBytes}) is over Temporal's payload limit: the server would refuse it as it refuses an
 * input without a store. `undefined` when it fits.
 */
export function inlinePayloadLimitStop(inlineBytes: number): string | undefined {
  const most = TEMPORAL_LIMITS.payloadBytes - ATTEMPT_ROOM_BYTES;
  if (inlineBytes <= most) return undefined;
  return (
    `the attempt's input keeps ${mb(inlineBytes)} (${inlineBytes} bytes) in its payload after the payload store ` +
    `takes its long strings, over Temporal's limit of ${mb(TEMPORAL_LIMITS.payloadBytes)} on one payload, so it ` +
    'is not scheduled: the store moves only strings over its threshold, and this input is mostly short ones; ' +
    'shorten the conversation (fewer or shorter messages), or lower MODEL_RETRY_PAYLOAD_STORE_THRESHOLD on ' +
    'workers and clients so that more of it is stored'
  );
}

/**
 * Why the call must stop with `history-limit` before its next attempt, or `undefined` when that attempt fits:
 * its input is over Temporal's payload limit (with a payload store, what the store leaves of it), or the history
 * now plus what
 * the attempt adds ({@link nextAttemptGrowth}) would pass the plan's `historyLimit`. Without an outlook (the
 * workflow did not say), nothing is known and nothing stops.
 */
export function historyLimitStop(
  plan: ResolvedPlan,
  outlook: HistoryOutlook | undefined,
): string | undefined {
  if (outlook === undefined) return undefined;
  const payload =
    outlook.payloadStore !== true
      ? payloadLimitStop(outlook.inputBytes)
      : outlook.inlineBytes !== undefined
        ? inlinePayloadLimitStop(outlook.inlineBytes)
        : undefined;
  if (payload !== undefined) return payload;
  const limit = plan.historyLimit;
  const adds = nextAttemptGrowth(outlook);
  const bytes = outlook.now.bytes + adds.bytes;
  if (bytes > limit.bytes) {
    return (
      `the next attempt would take the run's history to about ${mb(bytes)}, past \`historyLimit.bytes\` ` +
      `(${mb(limit.bytes)}): it holds ${mb(outlook.now.bytes)} and an attempt adds about ${mb(adds.bytes)}, ` +
      `mostly its input (the whole conversation); ${PAYLOAD_STORE}, or shorten the conversation`
    );
  }
  const events = outlook.now.events + adds.events;
  if (events > limit.events) {
    return (
      `the next attempt would take the run's history to about ${events} events, past \`historyLimit.events\` ` +
      `(${limit.events}): it holds ${outlook.now.events} and an attempt adds about ${adds.events}; lower ` +
      `\`maxAttempts\`, or run fewer calls in one run (continue as new between them, as an agent turn does)`
    );
  }
  return undefined;
}

/**
 * Whether an agent turn should continue as new before its next step (a turn can, a single call cannot): its
 * history now plus two attempts of the next model call (each about `stepInputBytes`, the conversation and tools it
 * sends, plus {@link ATTEMPT_OVERHEAD}) would pass the plan's `historyLimit`.
 */
export function turnNearHistoryLimit(plan: ResolvedPlan, now: HistorySize, stepInputBytes: number): boolean {
  const bytes = now.bytes + 2 * (stepInputBytes + ATTEMPT_OVERHEAD.bytes);
  const events = now.events + 2 * ATTEMPT_OVERHEAD.events;
  return bytes > plan.historyLimit.bytes || events > plan.historyLimit.events;
}
