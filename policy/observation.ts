/**
 * A normalised observation of what went wrong in one attempt: the facts a provider adapter (activity side)
 * or the workflow (Temporal timeouts, cancellation) can state without reading a message's wording.
 * Every field is optional; an empty observation classifies as `Unknown`.
 */
export interface Observation {
  /** HTTP status of the provider's response, when one arrived. */
  status?: number;
  /** Response headers, names in lower case (lookups also tolerate other cases). */
  headers?: Readonly<Record<string, string>>;
  /** The provider's machine-readable error code (OpenAI `error.code`, e.g. `insufficient_quota`). */
  providerCode?: string;
  /** The provider's machine-readable error type (OpenAI `error.type`, Anthropic `error.type`). */
  providerType?: string;
  /** The finish or stop reason of a response (`content_filter`, `SAFETY`, `refusal`, ...). */
  finishReason?: string;
  /** The socket or HTTP-client error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, ...). */
  socketCode?: string;
  /**
   * How far the request got: `before-send` (no byte of the request left: DNS, connect, TLS),
   * `sent` (the request was sent, no response body yet), `body` (a response body was being read).
   */
  phase?: ObservedPhase;
  /** Whether the response body arrived in full; `false` for a body cut mid-way. */
  bodyComplete?: boolean;
  /** How many deltas of a streamed attempt reached the caller's stream before it failed. */
  deltasDelivered?: number;
  /** The Temporal timeout that ended the attempt's activity, seen by the workflow. */
  timeoutType?: ObservedTimeoutType;
  /** The activity's own request timeout T fired (the activity aborted the request itself). */
  requestTimedOut?: boolean;
  /** The workflow's own cancellation scope was cancelled: the host cancelled the call. */
  ownScopeCancelled?: boolean;
  /** The worker running the attempt was shutting down (its activities were cancelled by the shutdown). */
  workerShutdown?: boolean;
  /**
   * The request was held back, not sent: fleet health has the backend open (or half-open with its probe taken),
   * or no `maxInFlight` slot of this worker came within the attempt's timeout.
   */
  coolingDown?: boolean;
  /** The worker cannot make the request: unknown provider or model, missing key variable. */
  misconfigured?: boolean;
  /** The provider's adapter matched its documented, tested "context too long" pattern. */
  contextTooLong?: boolean;
  /** The provider's adapter saw a content-policy refusal it states in its own way. */
  contentFiltered?: boolean;
  /**
   * The provider's adapter saw an account quota stated in its own way (Gemini's `QuotaFailure` detail with no
   * `RetryInfo`): `QuotaExhausted`, not a rate limit.
   */
  quotaExhausted?: boolean;
  /**
   * How long the provider asked the caller to wait, in ms, stated in its error body rather than a header
   * (Gemini's `RetryInfo.retryDelay`). A `retry-after-ms` or `retry-after` header wins over it.
   */
  retryAfterMs?: number;
  /** A complete 2xx body that is unusable: invalid JSON, wrong shape, no content. */
  parseFailed?: boolean;
  /** The call's input cannot be sent as it is (an `output.schema` that does not compile): `BadRequest`, nothing sent. */
  invalidInput?: boolean;
  /** A complete answer with no usable content (no text, no tool call); with an output-limit finish reason it is `OutputLimit`. */
  noContent?: boolean;
  /**
   * A structured answer (`output.schema`) that does not parse as JSON or does not validate: `SchemaMismatch`, or
   * `OutputLimit` when it stopped at the output limit (a cut answer has no usable content).
   */
  schemaMismatch?: boolean;
}

/** How far a request got before it failed. */
export const ObservedPhase = {
  BeforeSend: 'before-send',
  Sent: 'sent',
  Body: 'body',
} as const;

/** One of `before-send`, `sent`, `body`. */
export type ObservedPhase = (typeof ObservedPhase)[keyof typeof ObservedPhase];

/** Temporal's activity timeout types, as named by `TimeoutType` in `@temporalio/common`. */
export const ObservedTimeoutType = {
  StartToClose: 'START_TO_CLOSE',
  ScheduleToClose: 'SCHEDULE_TO_CLOSE',
  ScheduleToStart: 'SCHEDULE_TO_START',
  Heartbeat: 'HEARTBEAT',
} as const;

/** One of Temporal's activity timeout types. */
export type ObservedTimeoutType = (typeof ObservedTimeoutType)[keyof typeof ObservedTimeoutType];

/** A header's value by case-insensitive name, trimmed; `undefined` when absent. */
export function headerValue(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (headers === undefined) return undefined;
  const lower = name.toLowerCase();
  const direct = headers[lower];
  if (typeof direct === 'string') return direct.trim();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower && typeof value === 'string') return value.trim();
  }
  return undefined;
}
