import { FailureClass } from './classes.js';
import {
  CONNECT_ONLY_CODES,
  CONTENT_FILTER_CODES,
  CONTENT_FILTER_FINISH_REASONS,
  CONTEXT_TOO_LONG_CODES,
  MODEL_NOT_FOUND_CODES,
  OUTPUT_LIMIT_FINISH_REASONS,
  QUOTA_CODES,
  RESPONSE_TIMEOUT_CODES,
  hasCode,
  isTlsCode,
} from './codes.js';
import type { Observation } from './observation.js';
import { headerValue } from './observation.js';

type Row = readonly [FailureClass, (o: Observation) => boolean];

const between = (status: number | undefined, low: number, high: number): boolean =>
  status !== undefined && status >= low && status <= high;

const providerHas = (set: ReadonlySet<string>, o: Observation): boolean =>
  hasCode(set, o.providerCode) || hasCode(set, o.providerType);

/**
 * The worker stopped the request itself for a reason that is not the provider's or the network's (a
 * shutdown or the host's cancellation): an incomplete body or an abort code is then a consequence, not
 * a connection that broke or failed.
 */
const stoppedByUs = (o: Observation): boolean => o.workerShutdown === true || o.ownScopeCancelled === true;

const connectFailed = (o: Observation): boolean =>
  o.status === undefined &&
  !stoppedByUs(o) &&
  (o.phase === 'before-send' || hasCode(CONNECT_ONLY_CODES, o.socketCode) || isTlsCode(o.socketCode));

const connectionLost = (o: Observation): boolean =>
  !stoppedByUs(o) &&
  o.requestTimedOut !== true &&
  !hasCode(RESPONSE_TIMEOUT_CODES, o.socketCode) &&
  (o.bodyComplete === false || o.socketCode !== undefined);

/** The contract's table, in evaluation order: the first row that matches wins. */
const ROWS: readonly Row[] = [
  [FailureClass.StreamInterrupted, (o) => (o.deltasDelivered ?? 0) > 0],
  [FailureClass.CoolingDown, (o) => o.coolingDown === true],
  [FailureClass.Misconfigured, (o) => o.misconfigured === true],
  [
    FailureClass.ContentFiltered,
    (o) =>
      o.contentFiltered === true ||
      providerHas(CONTENT_FILTER_CODES, o) ||
      hasCode(CONTENT_FILTER_FINISH_REASONS, o.finishReason),
  ],
  [
    FailureClass.ContextTooLong,
    (o) =>
      o.contextTooLong === true ||
      providerHas(CONTEXT_TOO_LONG_CODES, o) ||
      hasCode(CONTEXT_TOO_LONG_CODES, o.finishReason),
  ],
  [
    FailureClass.QuotaExhausted,
    (o) => o.quotaExhausted === true || o.status === 402 || providerHas(QUOTA_CODES, o),
  ],
  [FailureClass.AuthFailed, (o) => o.status === 401 || o.status === 403],
  [FailureClass.ModelNotFound, (o) => o.status === 404 || providerHas(MODEL_NOT_FOUND_CODES, o)],
  [FailureClass.RateLimited, (o) => o.status === 429],
  [
    FailureClass.BadRequest,
    (o) => o.invalidInput === true || (between(o.status, 400, 499) && o.status !== 408 && o.status !== 425),
  ],
  [FailureClass.RequestTimeout, (o) => o.status === 408 || o.status === 425],
  [FailureClass.ServerError, (o) => between(o.status, 500, 599)],
  [FailureClass.ConnectFailed, connectFailed],
  [FailureClass.ConnectionLost, connectionLost],
  [
    FailureClass.OutputLimit,
    (o) =>
      (o.noContent === true || o.schemaMismatch === true) &&
      hasCode(OUTPUT_LIMIT_FINISH_REASONS, o.finishReason),
  ],
  [FailureClass.SchemaMismatch, (o) => o.schemaMismatch === true],
  [
    FailureClass.ParseFailed,
    (o) =>
      o.bodyComplete !== false &&
      (o.parseFailed === true ||
        o.noContent === true ||
        (between(o.status, 200, 299) && o.bodyComplete === true)),
  ],
  [
    FailureClass.ResponseTimeout,
    (o) =>
      o.timeoutType === 'START_TO_CLOSE' ||
      o.timeoutType === 'SCHEDULE_TO_CLOSE' ||
      o.requestTimedOut === true ||
      hasCode(RESPONSE_TIMEOUT_CODES, o.socketCode),
  ],
  [FailureClass.WorkerLost, (o) => o.timeoutType === 'HEARTBEAT' || o.workerShutdown === true],
];

/**
 * The failure class of an observation: the first row of the contract's table that matches. Reads
 * statuses, codes, headers' absence or presence, phases and flags; never the wording of a message.
 *
 * Check {@link isCancellation} first: a cancelled call is not a failure class. A `SCHEDULE_TO_CLOSE`
 * timeout classifies as `ResponseTimeout` (the fact) while the call stops with `deadline`
 * (see {@link isDeadlineTimeout}).
 */
export function classify(o: Observation): FailureClass {
  for (const [failureClass, matches] of ROWS) {
    if (matches(o)) return failureClass;
  }
  return FailureClass.Unknown;
}

/**
 * Whether the observation is the host's cancellation of this call: only when the workflow's own scope
 * was cancelled. A worker shutting down also cancels its activities; that is `WorkerLost`, never a
 * cancellation, even when both are reported.
 */
export function isCancellation(o: Observation): boolean {
  return o.ownScopeCancelled === true && o.workerShutdown !== true;
}

/** Whether Temporal's `SCHEDULE_TO_CLOSE` timeout ended the attempt: the call stops with `deadline`. */
export function isDeadlineTimeout(o: Observation): boolean {
  return o.timeoutType === 'SCHEDULE_TO_CLOSE';
}

/**
 * The action named by an `x-should-retry` response header: `true` -> `retry-same`, `false` -> `drop`,
 * anything else (or no header) -> `undefined`. Case-insensitive in name and value.
 */
export function shouldRetryHeader(
  headers: Readonly<Record<string, string>> | undefined,
): 'retry-same' | 'drop' | undefined {
  const value = headerValue(headers, 'x-should-retry')?.toLowerCase();
  if (value === 'true') return 'retry-same';
  if (value === 'false') return 'drop';
  return undefined;
}
