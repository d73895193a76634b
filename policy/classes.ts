/**
 * The vocabulary of the policy: failure classes (facts: what happened), actions (decisions: what to do
 * now) and stop reasons (why a call ended). Names are part of the public contract and appear in
 * `ApplicationFailure.type`, attempt records and the command line's output.
 */

/**
 * What went wrong in one attempt. The activity raises it as the `type` of a non-retryable
 * `ApplicationFailure`. Keys and values are equal so the class name reads the same everywhere.
 */
export const FailureClass = {
  /** A streamed attempt failed after any delta of it reached the stream. Always stops the call. */
  StreamInterrupted: 'StreamInterrupted',
  /**
   * Nothing was sent: fleet health has this backend `open` (tripped, or a fleet-wide retry-after or rate-limit
   * reset) or `half-open` with its one probe held by another attempt; `retryAfterMs` says until when.
   */
  CoolingDown: 'CoolingDown',
  /** The worker cannot make the request: unknown provider or model name, missing key variable. */
  Misconfigured: 'Misconfigured',
  /** The provider refused on content policy (status, code or finish reason). */
  ContentFiltered: 'ContentFiltered',
  /** The request exceeds the model's context window. */
  ContextTooLong: 'ContextTooLong',
  /** A 429 (or 402) that is an account quota or billing limit (`insufficient_quota` and the like). */
  QuotaExhausted: 'QuotaExhausted',
  /** 401, 403. */
  AuthFailed: 'AuthFailed',
  /** 404. */
  ModelNotFound: 'ModelNotFound',
  /** A 429 that is not a quota. */
  RateLimited: 'RateLimited',
  /** 400, 413, 422 and every other 4xx not matched by a row above or by `RequestTimeout`. */
  BadRequest: 'BadRequest',
  /** 408, 425. */
  RequestTimeout: 'RequestTimeout',
  /** 5xx, 529. */
  ServerError: 'ServerError',
  /** No connection was made (refused, DNS, connect timeout, TLS): nothing was sent. */
  ConnectFailed: 'ConnectFailed',
  /** The connection broke after the request was sent, including mid-body, or a stream ended without its finish event. */
  ConnectionLost: 'ConnectionLost',
  /**
   * The answer stopped at the output token limit (finish reason `length`) with no usable content (no text, no
   * tool call): the same request would end the same way.
   */
  OutputLimit: 'OutputLimit',
  /**
   * A structured answer (the call's `output.schema`) that does not parse as JSON or does not validate against the
   * schema. An answer cut at the output limit that does not validate is `OutputLimit` instead.
   */
  SchemaMismatch: 'SchemaMismatch',
  /** A complete 2xx body that is unusable: invalid JSON, wrong shape, no content. */
  ParseFailed: 'ParseFailed',
  /** Connected, but no complete answer within the attempt's timeout. */
  ResponseTimeout: 'ResponseTimeout',
  /** Temporal saw no heartbeat, or the worker shut down: the worker running the attempt is gone. */
  WorkerLost: 'WorkerLost',
  /** Anything else. */
  Unknown: 'Unknown',
} as const;

/** One of the failure classes. */
export type FailureClass = (typeof FailureClass)[keyof typeof FailureClass];

/** Every failure class, in the contract's evaluation order: the first row that matches wins. */
export const FAILURE_CLASSES: readonly FailureClass[] = Object.freeze(Object.values(FailureClass));

/** What the call does after a failure. */
export const Action = {
  /** Stop now; stop reason `non-retryable`. */
  Abort: 'abort',
  /** The same backend again after the next wait (at most `retriesPerBackend` in a row). */
  RetrySame: 'retry-same',
  /** The next backend still in the chain at once; a new round after the next wait when the chain is exhausted. */
  Advance: 'advance',
  /** Like `advance`, and this backend is not tried again in this call. */
  Drop: 'drop',
  /**
   * The same backend again at once, with the bad answer and the validator's errors appended as a correction
   * (`SchemaMismatch` only); at most `output.repairs` in a row per backend, then `drop`.
   */
  Repair: 'repair',
} as const;

/** One of `abort`, `retry-same`, `advance`, `drop`, `repair`. */
export type Action = (typeof Action)[keyof typeof Action];

/** Every action. */
export const ACTIONS: readonly Action[] = Object.freeze(Object.values(Action));

/** The classes whose action a plan may override (all but `StreamInterrupted`, whose stop is fixed). */
export type OverridableClass = Exclude<FailureClass, 'StreamInterrupted'>;

/** The default action of every overridable class (the contract's table). */
export const DEFAULT_ACTIONS: Readonly<Record<OverridableClass, Action>> = Object.freeze({
  CoolingDown: 'advance',
  Misconfigured: 'drop',
  ContentFiltered: 'drop',
  ContextTooLong: 'drop',
  QuotaExhausted: 'drop',
  AuthFailed: 'drop',
  ModelNotFound: 'drop',
  RateLimited: 'advance',
  BadRequest: 'abort',
  RequestTimeout: 'retry-same',
  ServerError: 'retry-same',
  ConnectFailed: 'retry-same',
  ConnectionLost: 'retry-same',
  OutputLimit: 'drop',
  SchemaMismatch: 'repair',
  ParseFailed: 'advance',
  ResponseTimeout: 'advance',
  WorkerLost: 'retry-same',
  Unknown: 'retry-same',
});

/**
 * Why a call ended, in the contract's order: when two apply, the first wins, and after every attempt the
 * decision asks about them in this order (see `AFTER_ATTEMPT_QUESTIONS` in `stop-order.ts`).
 */
export const StopReason = {
  /** The workflow's cancellation was requested before the call ended. */
  Cancelled: 'cancelled',
  Succeeded: 'succeeded',
  StreamInterrupted: 'stream-interrupted',
  /** An `abort`, or a `drop` of the last backend left. */
  NonRetryable: 'non-retryable',
  /** The next attempt's worst case would pass the call's budget. */
  Budget: 'budget',
  /** `maxAttempts` made, or the plan has no wait left and no backend is left to try at once. */
  AttemptsExhausted: 'attempts-exhausted',
  /** The next attempt would take the run past the plan's `historyLimit`, or its input is over Temporal's payload limit. */
  HistoryLimit: 'history-limit',
  RetryAfterExceeded: 'retry-after-exceeded',
  Deadline: 'deadline',
  /** Agent turns only. */
  MaxSteps: 'max-steps',
} as const;

/** One of the stop reasons. */
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/** Stop reasons, strongest first: when two apply, the first in this list wins. */
export const STOP_REASON_PRECEDENCE: readonly StopReason[] = Object.freeze(Object.values(StopReason));

/**
 * The strongest of the given stop reasons by {@link STOP_REASON_PRECEDENCE}, ignoring `undefined`;
 * `undefined` when none is given.
 */
export function firstStopReason(...reasons: readonly (StopReason | undefined)[]): StopReason | undefined {
  let best: StopReason | undefined;
  for (const reason of reasons) {
    if (reason === undefined) continue;
    if (best === undefined || STOP_REASON_PRECEDENCE.indexOf(reason) < STOP_REASON_PRECEDENCE.indexOf(best)) {
      best = reason;
    }
  }
  return best;
}

/** Whether a value is a failure class name (e.g. an `ApplicationFailure.type` read back from history). */
export function isFailureClass(value: unknown): value is FailureClass {
  return typeof value === 'string' && Object.hasOwn(FailureClass, value);
}

/** Whether a value is an action name. */
export function isAction(value: unknown): value is Action {
  return typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);
}

/** Whether a value is a stop reason. */
export function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'string' && (STOP_REASON_PRECEDENCE as readonly string[]).includes(value);
}
