/**
 * The shared fault scripts of the loopback provider and the class each must give whatever the provider family:
 * every family's wire format renders the same step in its own terms (Gemini's `RESOURCE_EXHAUSTED`, the
 * Responses API's `incomplete` status), and the attempt must come out the same.
 */
import type { AttemptFailureDetails } from '../../../activities/index.js';
import {
  cutMidBody,
  dropBeforeResponse,
  fail,
  malformed,
  ok,
  overloaded,
  quotaExhausted,
  rateLimited,
} from '../../../loopback/index.js';
import type { Step } from '../../../loopback/index.js';

/** One row: a scripted fault, and what the attempt's failure details must say. */
export type FaultRow = readonly [name: string, step: Step, expected: Partial<AttemptFailureDetails>];

/** The rows every family shares. */
export const SHARED_FAULTS: readonly FaultRow[] = [
  ['502 bad gateway -> ServerError', fail(502), { class: 'ServerError', status: 502 }],
  ['529 overloaded -> ServerError', overloaded(), { class: 'ServerError', status: 529 }],
  [
    '429 with retry-after seconds -> RateLimited, retryAfterMs',
    rateLimited(3),
    { class: 'RateLimited', status: 429, retryAfterMs: 3000 },
  ],
  ['a 429 quota -> QuotaExhausted', quotaExhausted(), { class: 'QuotaExhausted', status: 429 }],
  ['400 -> BadRequest', fail(400), { class: 'BadRequest', status: 400 }],
  ['401 -> AuthFailed', fail(401), { class: 'AuthFailed', status: 401 }],
  ['403 -> AuthFailed', fail(403), { class: 'AuthFailed', status: 403 }],
  ['404 -> ModelNotFound', fail(404), { class: 'ModelNotFound', status: 404 }],
  ['408 -> RequestTimeout', fail(408), { class: 'RequestTimeout', status: 408 }],
  [
    'x-should-retry: false on a 503 -> ServerError, shouldRetry drop',
    fail(503, { headers: { 'x-should-retry': 'false' } }),
    { class: 'ServerError', shouldRetry: 'drop' },
  ],
  ['malformed JSON 200 -> ParseFailed', malformed('invalid-json'), { class: 'ParseFailed', status: 200 }],
  ['wrong-shape 200 -> ParseFailed', malformed('wrong-shape'), { class: 'ParseFailed', status: 200 }],
  ['empty 200 body -> ParseFailed', malformed('empty'), { class: 'ParseFailed', status: 200 }],
  ['an answer with no content -> ParseFailed', ok(''), { class: 'ParseFailed', status: 200 }],
  ['dropped before the response -> ConnectionLost', dropBeforeResponse(), { class: 'ConnectionLost' }],
  ['body cut mid-way -> ConnectionLost', cutMidBody(), { class: 'ConnectionLost', status: 200 }],
  [
    'a content-filter finish -> ContentFiltered',
    ok('partial answ', { finishReason: 'content_filter' }),
    { class: 'ContentFiltered', status: 200 },
  ],
  [
    'the output limit with no content -> OutputLimit',
    ok('', { finishReason: 'length' }),
    { class: 'OutputLimit', status: 200 },
  ],
];
