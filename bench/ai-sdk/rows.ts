import {
  always,
  contextTooLong,
  dropBeforeResponse,
  fail,
  malformed,
  ok,
  quotaExhausted,
  rateLimited,
  slow,
  toolCall,
} from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';

/** What the agent's provider does: the fault on its first request, then the tool call and the answer. */
export const AGENT_ANSWER: Step[] = [toolCall('weather', { city: 'Paris' }), ok('Sunny in Paris.')];
const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];

/** One row of the comparison's fault matrix. */
export interface FaultRow {
  name: string;
  /** The contract's class model-retry makes of it (what the row exercises). */
  class: string;
  /** The script of the (first) backend. */
  script(): Step[];
  /** A 3-backend chain: backends 2 and 3 get these scripts (model-retry only; Temporal's model has no chain). */
  chain?: [Step[], Step[]];
  /** Run the `streamText` workflows instead of the agent. */
  stream?: boolean;
  /** Cancel the workflow once the provider has the request. */
  cancel?: boolean;
}

const once = (fault: Step): Step[] => [fault, ...AGENT_ANSWER];

/** The fault matrix: each class the loopback provider can produce, the retry-after forms, a chain, a cut, a cancel. */
export const FAULT_ROWS: FaultRow[] = [
  { name: 'no fault', class: '-', script: () => [...AGENT_ANSWER] },
  { name: '502 once', class: 'ServerError', script: () => once(fail(502)) },
  { name: '408 once', class: 'RequestTimeout', script: () => once(fail(408)) },
  { name: 'connection dropped once', class: 'ConnectionLost', script: () => once(dropBeforeResponse()) },
  { name: 'malformed 200 once', class: 'ParseFailed', script: () => once(malformed()) },
  { name: '429 retry-after: 2 (seconds)', class: 'RateLimited', script: () => once(rateLimited(2)) },
  {
    name: '429 retry-after-ms: 1500',
    class: 'RateLimited',
    script: () => once(fail(429, { headers: { 'retry-after-ms': '1500' } })),
  },
  {
    name: '429 retry-after: HTTP date (+3 s)',
    class: 'RateLimited',
    script: () => once(fail(429, { headers: { 'retry-after': new Date(Date.now() + 3000).toUTCString() } })),
  },
  {
    name: '429 insufficient_quota (always)',
    class: 'QuotaExhausted',
    script: () => [always(quotaExhausted())],
  },
  { name: '401 (always)', class: 'AuthFailed', script: () => [always(fail(401))] },
  { name: '404 (always)', class: 'ModelNotFound', script: () => [always(fail(404))] },
  { name: '400 (always)', class: 'BadRequest', script: () => [always(fail(400))] },
  { name: 'context too long (always)', class: 'ContextTooLong', script: () => [always(contextTooLong())] },
  {
    name: '3-backend chain, first two 503 (always)',
    class: 'ServerError -> advance',
    script: () => [always(fail(503))],
    chain: [[always(fail(503))], [...AGENT_ANSWER]],
  },
  {
    name: 'stream cut after 5 deltas delivered',
    class: 'StreamInterrupted',
    script: () => [ok(undefined, { chunks: WORDS, chunkDelayMs: 40, cutAfterChunks: 5 }), ok(WORDS.join(''))],
    stream: true,
  },
  {
    name: 'cancel mid-request',
    class: '(cancelled)',
    // Answers after 4 s: long enough to see whether the cancel aborted it, short enough to let workers stop.
    script: () => [slow(4000, ok('too late'))],
    cancel: true,
  },
];
