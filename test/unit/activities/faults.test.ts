import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptFailureDetails } from '../../../activities/index.js';
import type { Step } from '../../../loopback/index.js';
import {
  contextTooLong,
  cutMidBody,
  dropBeforeResponse,
  fail,
  malformed,
  ok,
  overloaded,
  quotaExhausted,
  rateLimited,
  slow,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, input, loopbackRegistry, runAttempt, timedOutAttempt } from './helpers.js';

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

/** One row: a scripted fault, the class it must map to and the facts the details must carry. */
type Row = readonly [name: string, step: Step, expected: Partial<AttemptFailureDetails>];

const inAMinute = () => new Date(Date.now() + 60_000).toUTCString();

const ROWS: readonly Row[] = [
  ['502 bad gateway -> ServerError', fail(502), { class: 'ServerError', status: 502 }],
  [
    '529 overloaded -> ServerError with its error type',
    overloaded(),
    { class: 'ServerError', status: 529, code: 'overloaded_error' },
  ],
  [
    '429 with retry-after seconds -> RateLimited, retryAfterMs',
    rateLimited(3),
    { class: 'RateLimited', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 3000 },
  ],
  [
    '429 with retry-after-ms -> RateLimited, retryAfterMs',
    fail(429, { headers: { 'retry-after-ms': '1500', 'retry-after': '9' } }),
    { class: 'RateLimited', retryAfterMs: 1500 },
  ],
  [
    '429 insufficient_quota -> QuotaExhausted',
    quotaExhausted(),
    { class: 'QuotaExhausted', code: 'insufficient_quota' },
  ],
  [
    '400 context_length_exceeded -> ContextTooLong',
    contextTooLong(),
    { class: 'ContextTooLong', status: 400, code: 'context_length_exceeded' },
  ],
  ['400 -> BadRequest', fail(400), { class: 'BadRequest', status: 400 }],
  ['422 -> BadRequest', fail(422), { class: 'BadRequest', status: 422 }],
  ['401 -> AuthFailed', fail(401), { class: 'AuthFailed', status: 401 }],
  ['403 -> AuthFailed', fail(403), { class: 'AuthFailed', status: 403 }],
  ['404 -> ModelNotFound', fail(404), { class: 'ModelNotFound', status: 404 }],
  ['408 -> RequestTimeout', fail(408), { class: 'RequestTimeout', status: 408 }],
  [
    'x-should-retry: true on a 400 -> BadRequest, shouldRetry retry-same',
    fail(400, { headers: { 'x-should-retry': 'true' } }),
    { class: 'BadRequest', shouldRetry: 'retry-same' },
  ],
  [
    'x-should-retry: false on a 503 -> ServerError, shouldRetry drop',
    fail(503, { headers: { 'x-should-retry': 'false' } }),
    { class: 'ServerError', shouldRetry: 'drop' },
  ],
  ['malformed JSON 200 -> ParseFailed', malformed('invalid-json'), { class: 'ParseFailed', status: 200 }],
  ['wrong-shape 200 -> ParseFailed', malformed('wrong-shape'), { class: 'ParseFailed', status: 200 }],
  ['empty 200 body -> ParseFailed', malformed('empty'), { class: 'ParseFailed', status: 200 }],
  ['an answer with no content -> ParseFailed', ok(''), { class: 'ParseFailed', status: 200 }],
  [
    'dropped before the response -> ConnectionLost',
    dropBeforeResponse(),
    { class: 'ConnectionLost', code: 'UND_ERR_SOCKET' },
  ],
  [
    'body cut mid-way -> ConnectionLost',
    cutMidBody(),
    { class: 'ConnectionLost', status: 200, code: 'UND_ERR_SOCKET' },
  ],
  [
    'content_filter finish reason -> ContentFiltered',
    ok('partial answ', { finishReason: 'content_filter' }),
    { class: 'ContentFiltered', status: 200 },
  ],
];

describe('modelRequest, each fault of the loopback provider', () => {
  it.each(ROWS)('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const before = Date.now();
    const { details } = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(details).toMatchObject(expected);
    expect(details.message.length).toBeGreaterThan(0);
    expect(details.message.length).toBeLessThanOrEqual(300);
    expect(Date.parse(details.startedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(details.endedAt)).toBeGreaterThanOrEqual(Date.parse(details.startedAt));
    for (const key of ['retryAfterMs', 'shouldRetry'] as const) {
      if (!(key in expected)) expect(details[key]).toBeUndefined();
    }
  });

  it('429 with retry-after as an HTTP date -> RateLimited, retryAfterMs until then', async () => {
    const retryAt = inAMinute();
    lp.script('m', [fail(429, { headers: { 'retry-after': retryAt } })]);
    const { details } = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(details.class).toBe('RateLimited');
    // Counted from when the attempt ended (its endedAt), however long the machine took to get there.
    expect(details.retryAfterMs).toBe(Date.parse(retryAt) - Date.parse(details.endedAt));
    expect(details.retryAfterMs).toBeGreaterThan(0);
  });

  it('carries the usage of a 2xx answer that still failed (it was billed), and none otherwise', async () => {
    lp.script('m', [
      ok('', { usage: { inputTokens: 7, outputTokens: 0 } }),
      ok('no', { finishReason: 'content_filter', usage: { inputTokens: 3, outputTokens: 1 } }),
      fail(500),
    ]);
    const empty = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(empty.details).toMatchObject({
      class: 'ParseFailed',
      usage: { inputTokens: 7, outputTokens: 0, totalTokens: 7 },
    });
    const filtered = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(filtered.details).toMatchObject({
      class: 'ContentFiltered',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
    const server = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(server.details).not.toHaveProperty('usage');
  });

  it('slow beyond timeoutMs -> ResponseTimeout, and the request timed out is aborted at the provider', async () => {
    lp.script('m', [slow(2000, ok())]);
    const before = Date.now();
    const attempt = input('local:m', { timeoutMs: 300 });
    const { details } = await timedOutAttempt(lp, loopbackRegistry(lp), attempt, 'm');
    expect(details).toMatchObject({ class: 'ResponseTimeout' });
    expect(details.message).toContain('300 ms');
    expect(Date.parse(details.startedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(details.endedAt)).toBeGreaterThanOrEqual(Date.parse(details.startedAt));
    expect(details.retryAfterMs).toBeUndefined();
    expect(details.shouldRetry).toBeUndefined();
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('client-aborted');
  });
});

describe('modelRequest, no provider to talk to', () => {
  it('connection refused (a closed port) -> ConnectFailed', async () => {
    const closed = await startLoopbackProvider();
    const url = closed.openaiBaseURL;
    await closed.close();
    const { details } = await attemptFailure(runAttempt(loopbackRegistry(lp, url), input('local:m')).done);
    expect(details).toMatchObject({ class: 'ConnectFailed', code: 'ECONNREFUSED' });
    expect(details.status).toBeUndefined();
  });
});
