import { describe, expect, it } from 'vitest';
import type { FailureClass, Observation } from '../../../policy/index.js';
import {
  FAILURE_CLASSES,
  classify,
  failureOf,
  isCancellation,
  isDeadlineTimeout,
  shouldRetryHeader,
} from '../../../policy/index.js';

/** One fixture per row of the contract's table (and per way a row can match), named after what it is. */
const ROWS: readonly (readonly [string, Observation, FailureClass])[] = [
  [
    'a stream that failed after 3 deltas reached the caller',
    { deltasDelivered: 3, status: 500 },
    'StreamInterrupted',
  ],
  [
    'a stream cut mid-body after its first delta',
    { deltasDelivered: 1, phase: 'body', socketCode: 'ECONNRESET', bodyComplete: false },
    'StreamInterrupted',
  ],
  ['fleet health has the backend open: nothing was sent', { coolingDown: true }, 'CoolingDown'],
  ['cooling down beats a misconfiguration', { coolingDown: true, misconfigured: true }, 'CoolingDown'],
  ['a missing key variable', { misconfigured: true }, 'Misconfigured'],
  ['an unknown model name in the registry', { misconfigured: true, phase: 'before-send' }, 'Misconfigured'],
  ['an Azure content_filter 400', { status: 400, providerCode: 'content_filter' }, 'ContentFiltered'],
  [
    'an OpenAI content_policy_violation',
    { status: 400, providerCode: 'content_policy_violation' },
    'ContentFiltered',
  ],
  [
    'a 200 with finish reason content_filter',
    { status: 200, bodyComplete: true, finishReason: 'content_filter' },
    'ContentFiltered',
  ],
  [
    'a Gemini finish reason SAFETY',
    { status: 200, bodyComplete: true, finishReason: 'SAFETY' },
    'ContentFiltered',
  ],
  [
    'an Anthropic stop reason refusal',
    { status: 200, bodyComplete: true, finishReason: 'refusal' },
    'ContentFiltered',
  ],
  ['an adapter-flagged content refusal', { status: 400, contentFiltered: true }, 'ContentFiltered'],
  [
    'an OpenAI context_length_exceeded 400',
    { status: 400, providerCode: 'context_length_exceeded' },
    'ContextTooLong',
  ],
  [
    'an Anthropic "prompt is too long" matched by its adapter',
    { status: 400, providerType: 'invalid_request_error', contextTooLong: true },
    'ContextTooLong',
  ],
  ['an OpenAI insufficient_quota 429', { status: 429, providerCode: 'insufficient_quota' }, 'QuotaExhausted'],
  [
    'an OpenAI billing_hard_limit_reached 429',
    { status: 429, providerType: 'billing_hard_limit_reached' },
    'QuotaExhausted',
  ],
  ['an Anthropic 402 billing_error', { status: 402, providerType: 'billing_error' }, 'QuotaExhausted'],
  ['a bare 402 payment required', { status: 402 }, 'QuotaExhausted'],
  [
    'a Gemini 429 RESOURCE_EXHAUSTED whose QuotaFailure its adapter read as a quota',
    { status: 429, providerCode: 'RESOURCE_EXHAUSTED', quotaExhausted: true },
    'QuotaExhausted',
  ],
  ['a 401 invalid key', { status: 401, providerType: 'authentication_error' }, 'AuthFailed'],
  ['a 403 forbidden', { status: 403 }, 'AuthFailed'],
  ['a 404 unknown model', { status: 404 }, 'ModelNotFound'],
  ['an OpenAI model_not_found code', { status: 400, providerCode: 'model_not_found' }, 'ModelNotFound'],
  ['a 429 rate limit', { status: 429, providerType: 'rate_limit_error' }, 'RateLimited'],
  ['a 429 with retry-after', { status: 429, headers: { 'retry-after': '2' } }, 'RateLimited'],
  ['a 400 bad request', { status: 400 }, 'BadRequest'],
  ['a 413 request too large', { status: 413 }, 'BadRequest'],
  ['a 422 unprocessable entity', { status: 422 }, 'BadRequest'],
  ['a 409 conflict (another 4xx)', { status: 409 }, 'BadRequest'],
  ['a 408 request timeout', { status: 408 }, 'RequestTimeout'],
  ['a 425 too early', { status: 425 }, 'RequestTimeout'],
  ['a 500 internal error', { status: 500 }, 'ServerError'],
  ['a 502 bad gateway', { status: 502 }, 'ServerError'],
  ['a 503 service unavailable', { status: 503 }, 'ServerError'],
  ['an anthropic 529 overloaded', { status: 529, providerType: 'overloaded_error' }, 'ServerError'],
  ['a 500 whose body was cut', { status: 500, bodyComplete: false }, 'ServerError'],
  ['a refused connection', { socketCode: 'ECONNREFUSED', phase: 'before-send' }, 'ConnectFailed'],
  ['a DNS failure (ENOTFOUND)', { socketCode: 'ENOTFOUND' }, 'ConnectFailed'],
  ['a DNS timeout (EAI_AGAIN)', { socketCode: 'EAI_AGAIN' }, 'ConnectFailed'],
  ['an undici connect timeout', { socketCode: 'UND_ERR_CONNECT_TIMEOUT' }, 'ConnectFailed'],
  ['an ETIMEDOUT while connecting', { socketCode: 'ETIMEDOUT', phase: 'before-send' }, 'ConnectFailed'],
  ['an expired TLS certificate', { socketCode: 'CERT_HAS_EXPIRED' }, 'ConnectFailed'],
  ['a TLS protocol error', { socketCode: 'ERR_SSL_WRONG_VERSION_NUMBER' }, 'ConnectFailed'],
  [
    'the request timeout T firing while connecting',
    { phase: 'before-send', requestTimedOut: true },
    'ConnectFailed',
  ],
  ['a reset after the request was sent', { socketCode: 'ECONNRESET', phase: 'sent' }, 'ConnectionLost'],
  ['an undici socket error mid-body', { socketCode: 'UND_ERR_SOCKET', phase: 'body' }, 'ConnectionLost'],
  ['a broken pipe while sending', { socketCode: 'EPIPE', phase: 'sent' }, 'ConnectionLost'],
  ['an ETIMEDOUT after the request was sent', { socketCode: 'ETIMEDOUT', phase: 'sent' }, 'ConnectionLost'],
  [
    'an ETIMEDOUT of unknown phase (cannot claim nothing was sent)',
    { socketCode: 'ETIMEDOUT' },
    'ConnectionLost',
  ],
  ['a 2xx cut mid-body', { status: 200, phase: 'body', bodyComplete: false }, 'ConnectionLost'],
  [
    'an empty answer that stopped at the output limit (finish reason length)',
    { status: 200, bodyComplete: true, noContent: true, finishReason: 'length' },
    'OutputLimit',
  ],
  [
    'an empty Anthropic answer with stop reason max_tokens',
    { status: 200, bodyComplete: true, noContent: true, finishReason: 'max_tokens' },
    'OutputLimit',
  ],
  [
    'an empty Gemini answer with finish reason MAX_TOKENS',
    { status: 200, bodyComplete: true, noContent: true, finishReason: 'MAX_TOKENS' },
    'OutputLimit',
  ],
  ['an output.schema that does not compile (nothing sent)', { invalidInput: true }, 'BadRequest'],
  [
    'a structured answer cut at the output limit that does not validate',
    { status: 200, bodyComplete: true, schemaMismatch: true, finishReason: 'length' },
    'OutputLimit',
  ],
  [
    'a structured answer that does not validate against output.schema',
    { status: 200, bodyComplete: true, schemaMismatch: true, finishReason: 'stop' },
    'SchemaMismatch',
  ],
  ['a structured answer that is not JSON at all', { status: 200, schemaMismatch: true }, 'SchemaMismatch'],
  [
    'an empty answer that stopped normally (finish reason stop)',
    { status: 200, bodyComplete: true, noContent: true, finishReason: 'stop' },
    'ParseFailed',
  ],
  ['a complete 2xx with invalid JSON', { status: 200, bodyComplete: true, parseFailed: true }, 'ParseFailed'],
  ['a complete 2xx with no content', { status: 200, bodyComplete: true }, 'ParseFailed'],
  ['an adapter-flagged wrong shape', { parseFailed: true }, 'ParseFailed'],
  ['a START_TO_CLOSE timeout', { timeoutType: 'START_TO_CLOSE' }, 'ResponseTimeout'],
  [
    'a SCHEDULE_TO_CLOSE timeout (the fact; the call stops with deadline)',
    { timeoutType: 'SCHEDULE_TO_CLOSE' },
    'ResponseTimeout',
  ],
  [
    'the request timeout T firing while waiting for headers',
    { phase: 'sent', requestTimedOut: true },
    'ResponseTimeout',
  ],
  [
    'the request timeout T firing mid-body',
    { status: 200, phase: 'body', bodyComplete: false, requestTimedOut: true },
    'ResponseTimeout',
  ],
  ['an undici headers timeout', { socketCode: 'UND_ERR_HEADERS_TIMEOUT', phase: 'sent' }, 'ResponseTimeout'],
  ['an undici body timeout', { socketCode: 'UND_ERR_BODY_TIMEOUT', phase: 'body' }, 'ResponseTimeout'],
  ['a HEARTBEAT timeout', { timeoutType: 'HEARTBEAT' }, 'WorkerLost'],
  ['a worker shutdown mid-body', { workerShutdown: true, phase: 'body', bodyComplete: false }, 'WorkerLost'],
  ['a worker shutdown while connecting', { workerShutdown: true, phase: 'before-send' }, 'WorkerLost'],
  ['an empty observation', {}, 'Unknown'],
  ['a SCHEDULE_TO_START timeout', { timeoutType: 'SCHEDULE_TO_START' }, 'Unknown'],
  ['a 302 redirect that was not followed', { status: 302 }, 'Unknown'],
  ['a request sent with nothing known after', { phase: 'sent' }, 'Unknown'],
];

describe('classify: the contract table, one row at a time', () => {
  it.each(ROWS)('%s -> %s', (_name, observation, expected) => {
    expect(classify(observation)).toBe(expected);
  });

  it('has a fixture for every one of the classes', () => {
    const covered = new Set(ROWS.map(([, , cls]) => cls));
    expect([...covered].sort()).toEqual([...FAILURE_CLASSES].sort());
    expect(FAILURE_CLASSES).toHaveLength(20);
  });
});

describe('classify: evaluation order', () => {
  it.each([
    ['deltas beat a 429', { deltasDelivered: 2, status: 429 }, 'StreamInterrupted'],
    ['misconfiguration beats a 401', { misconfigured: true, status: 401 }, 'Misconfigured'],
    [
      'a content filter beats context length',
      { providerCode: 'content_filter', contextTooLong: true },
      'ContentFiltered',
    ],
    [
      'context length beats a quota code',
      { contextTooLong: true, providerCode: 'insufficient_quota' },
      'ContextTooLong',
    ],
    ['a quota code beats 429', { status: 429, providerCode: 'insufficient_quota' }, 'QuotaExhausted'],
    ['a status beats a socket code', { status: 503, socketCode: 'ECONNRESET' }, 'ServerError'],
    [
      'a cut body beats an unparsable one',
      { status: 200, bodyComplete: false, parseFailed: true },
      'ConnectionLost',
    ],
    [
      'a content-filter finish beats an empty answer',
      { status: 200, bodyComplete: true, noContent: true, finishReason: 'content_filter' },
      'ContentFiltered',
    ],
    [
      'a cut stream beats an output limit',
      { status: 200, bodyComplete: false, noContent: true, finishReason: 'length' },
      'ConnectionLost',
    ],
    [
      'a heartbeat timeout is not a response timeout',
      { timeoutType: 'HEARTBEAT', requestTimedOut: false },
      'WorkerLost',
    ],
  ] as const)('%s', (_name, observation: Observation, expected) => {
    expect(classify(observation)).toBe(expected);
  });
});

describe('classify never reads message text', () => {
  it('a 400 whose message says "timeout" stays BadRequest', () => {
    const observed = { status: 400, message: 'upstream timeout, please retry later' };
    expect(classify(observed)).toBe('BadRequest');
  });

  it('a 500 whose message says "context length exceeded" stays ServerError', () => {
    const observed = { status: 500, message: "This model's maximum context length is 8192 tokens" };
    expect(classify(observed)).toBe('ServerError');
  });

  it('a 429 whose message mentions quota stays RateLimited without a quota code', () => {
    const observed = { status: 429, message: 'You exceeded your current quota' };
    expect(classify(observed)).toBe('RateLimited');
  });
});

describe('a 2xx cut mid-body', () => {
  it('is ConnectionLost, not ParseFailed, even though its JSON does not parse', () => {
    expect(classify({ status: 200, phase: 'body', bodyComplete: false, parseFailed: true })).toBe(
      'ConnectionLost',
    );
  });
});

describe('cancellation', () => {
  it("is the workflow's own scope being cancelled", () => {
    expect(isCancellation({ ownScopeCancelled: true })).toBe(true);
  });

  it('a worker shutdown is never cancelled', () => {
    expect(isCancellation({ workerShutdown: true })).toBe(false);
    expect(isCancellation({ workerShutdown: true, ownScopeCancelled: true })).toBe(false);
    expect(classify({ workerShutdown: true, ownScopeCancelled: true })).toBe('WorkerLost');
  });

  it('a failure without a cancelled scope is not cancelled', () => {
    expect(isCancellation({ status: 503 })).toBe(false);
    expect(isCancellation({ timeoutType: 'START_TO_CLOSE' })).toBe(false);
  });
});

describe('deadline timeouts', () => {
  it('SCHEDULE_TO_CLOSE stops the call with deadline; START_TO_CLOSE does not', () => {
    expect(isDeadlineTimeout({ timeoutType: 'SCHEDULE_TO_CLOSE' })).toBe(true);
    expect(isDeadlineTimeout({ timeoutType: 'START_TO_CLOSE' })).toBe(false);
  });
});

describe('x-should-retry', () => {
  it.each([
    [{ 'x-should-retry': 'true' }, 'retry-same'],
    [{ 'x-should-retry': 'false' }, 'drop'],
    [{ 'x-should-retry': ' TRUE ' }, 'retry-same'],
    [{ 'X-Should-Retry': 'false' }, 'drop'],
    [{ 'x-should-retry': 'maybe' }, undefined],
    [{ 'x-should-retry': '' }, undefined],
    [{}, undefined],
  ] as const)('%j -> %s', (headers, expected) => {
    expect(shouldRetryHeader(headers)).toBe(expected);
  });

  it('is absent when there are no headers', () => {
    expect(shouldRetryHeader(undefined)).toBeUndefined();
  });

  it('overrides the action, not the class', () => {
    const failure = failureOf({ status: 400, headers: { 'x-should-retry': 'true' } }, 0);
    expect(failure).toEqual({ class: 'BadRequest', shouldRetry: 'retry-same' });
  });
});

describe('failureOf', () => {
  it('carries the class, the retry-after and the x-should-retry of an observation', () => {
    const failure = failureOf(
      { status: 503, headers: { 'retry-after': '3', 'x-should-retry': 'false' } },
      1_000,
    );
    expect(failure).toEqual({ class: 'ServerError', retryAfterMs: 3000, shouldRetry: 'drop' });
  });

  it('leaves out what the observation does not say', () => {
    expect(failureOf({ status: 500 }, 0)).toEqual({ class: 'ServerError' });
  });

  it('carries a retry-after stated in the error body (Gemini RetryInfo), rounded up to whole ms', () => {
    expect(failureOf({ status: 429, retryAfterMs: 30_000.4 }, 0)).toEqual({
      class: 'RateLimited',
      retryAfterMs: 30_001,
    });
  });

  it('prefers a retry-after header to the one stated in the body, and ignores a negative body value', () => {
    expect(failureOf({ status: 429, retryAfterMs: 30_000, headers: { 'retry-after': '2' } }, 0)).toEqual({
      class: 'RateLimited',
      retryAfterMs: 2000,
    });
    expect(failureOf({ status: 429, retryAfterMs: -1 }, 0)).toEqual({ class: 'RateLimited' });
  });
});
