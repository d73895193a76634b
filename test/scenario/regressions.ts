import type { Scenario } from './scenario.js';

/**
 * Cases every run tries first (fast-check `examples`), each a shrunk finding of the suite or of a run once terminated for its size, that
 * does not depend on a race. They keep the suite honest about what it once found, whatever the seed.
 */
export const REGRESSIONS: Scenario[] = [
  // K2: a retry-same when the waits list is used up must advance to the untried backend, not stop.
  {
    chain: [
      { kind: 'loopback', faults: [{ kind: 'status', status: 503, delayMs: 0 }] },
      { kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] },
    ],
    plan: { waits: [10], maxAttempts: 5, attemptTimeoutMs: 1000 },
    stream: false,
  },
  // K3: an empty answer that stopped at the output limit is OutputLimit (drop), not ParseFailed.
  { chain: [{ kind: 'loopback', faults: [{ kind: 'empty-length' }] }], plan: false, stream: false },
  // K4: a stream that ends cleanly without its finish chunk is ConnectionLost or StreamInterrupted.
  { chain: [{ kind: 'loopback', faults: [{ kind: 'clean-cut' }] }], plan: false, stream: true },
  // F1: the last allowed attempt runs into the deadline: maxAttempts is asked before the deadline rule.
  {
    chain: [{ kind: 'loopback', faults: [{ kind: 'hang' }] }],
    plan: {
      waits: [10],
      maxAttempts: 1,
      deadline: { inMs: 2500, reserveMs: 0, minAttemptMs: 100 },
      attemptTimeoutMs: 5000,
    },
    stream: false,
  },
  // B1: an empty answer billed 74 tokens and dropped its backend; the next backend's worst case (13 input + the
  // largest output seen, 64) would pass a budget of 120: the call stops `budget`, not with another attempt.
  {
    chain: [
      { kind: 'loopback', faults: [{ kind: 'empty-length' }] },
      { kind: 'loopback', faults: [{ kind: 'empty-length' }, { kind: 'ok', delayMs: 0 }] },
    ],
    plan: { waits: [10, 10], maxAttempts: 5, attemptTimeoutMs: 1500 },
    stream: false,
    budget: { maxTotalTokens: 120 },
  },
  // N1: three calls at once on one slow backend, one maxInFlight slot per worker and one breaker: the slot holds
  // (never two requests of the worker in flight), the calls that wait for it send nothing until they have it.
  {
    chain: [{ kind: 'loopback', faults: [{ kind: 'ok', delayMs: 200 }] }],
    plan: { waits: [10], maxAttempts: 2, attemptTimeoutMs: 1000 },
    stream: false,
    health: true,
    limits: { maxInFlight: 1 },
    neighbours: [
      {
        chain: [0],
        plan: { waits: [10], maxAttempts: 2, attemptTimeoutMs: 1000 },
        stream: false,
        startMs: 0,
      },
      { chain: [0], plan: { maxAttempts: 1, attemptTimeoutMs: 1500 }, stream: true, startMs: 0 },
    ],
  },
  // C1: a stream cut after two words, continued on the same backend: one text, each character once.
  {
    chain: [
      {
        kind: 'loopback',
        faults: [
          { kind: 'stream-cut', chunks: 2 },
          { kind: 'ok', delayMs: 0 },
        ],
      },
    ],
    plan: { waits: [10], maxAttempts: 3, attemptTimeoutMs: 1500 },
    stream: true,
    onCut: 'continue',
  },
  // C2: cut twice, the second time on the continuation, then continued on the next backend by a model that
  // restarts from the beginning (its repeated head trimmed by the overlap rule, or published as sent).
  {
    chain: [
      {
        kind: 'loopback',
        faults: [
          { kind: 'stream-cut', chunks: 3 },
          { kind: 'stream-cut', chunks: 1 },
        ],
      },
      { kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] },
    ],
    plan: { waits: [10, 10], maxAttempts: 4, attemptTimeoutMs: 1500, retriesPerBackend: 1 },
    stream: true,
    onCut: 'continue',
    continueMode: 'restart',
  },
  // C3: the worker killed while the answer streams: the attempt is lost after part of its text reached the stream,
  // and the next attempt, on another worker, continues it.
  {
    chain: [
      { kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] },
      { kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] },
    ],
    plan: { waits: [10], maxAttempts: 3, attemptTimeoutMs: 2000 },
    stream: true,
    onCut: 'continue',
    kill: { request: 1, plusMs: 90 },
  },
  // T1: a tenant's envelope holds one attempt (110 tokens; each reserves 102). A cut answer may have been billed, so
  // it settles its whole reservation: the next attempt is refused, sends nothing, and the call stops `budget`.
  {
    chain: [
      {
        kind: 'loopback',
        faults: [{ kind: 'cut' }, { kind: 'ok', delayMs: 0 }],
      },
    ],
    plan: { waits: [10], maxAttempts: 3, attemptTimeoutMs: 1000 },
    stream: false,
    tenant: { maxTotalTokens: 110 },
  },
];
