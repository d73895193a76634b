import { describe, expect, it } from 'vitest';
import { decide, initialState, startDecision, validatePlan } from '../../../policy/index.js';
import type { CallState } from '../../../policy/index.js';
import { fail, fixedRandom, plan, run, scripted } from './harness.js';

const A = 0;
const B = 1;
const mismatch = fail('SchemaMismatch');

/** The backends and actions of a run's attempts, e.g. `['0', '0 repair', '1 drop']`. */
const steps = (result: ReturnType<typeof run>) =>
  result.attempts.map((a) => (a.action === undefined ? `${a.backend}` : `${a.backend} ${a.action}`));

describe('repair: a SchemaMismatch asks the same backend again at once', () => {
  it('repairs at once on the same backend, counted apart from same-backend retries and using no planned wait', () => {
    const p = plan({ waits: [10] });
    const start = startDecision(p, initialState(2), 0);
    const d = decide(p, start.state, mismatch, 100, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: A, waitMs: 0, action: 'repair' });
    expect(d.state).toMatchObject({
      attempts: 2,
      waitsTaken: 0,
      sameBackendRetries: 0,
      repairs: 1,
      round: 1,
    });
    expect(d.why).toMatch(/SchemaMismatch: repair \(default table\).*repair 1 of 2/);
  });

  it('allows output.repairs (default 2) in a row, then drops the backend: the next one gets the request at once', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      script: scripted([mismatch, mismatch, mismatch, 'ok']),
    });
    expect(steps(result)).toEqual(['0', '0 repair', '0 repair', '1 drop']);
    expect(result.outcome).toBe('succeeded');
    const dropped = result.decisions.at(-1)?.decision;
    expect(dropped?.why).toMatch(/output\.repairs \(2\) used on backend 0, so drop/);
    expect(dropped?.state).toMatchObject({ backend: B, repairs: 0, dropped: [A] });
  });

  it("follows the call's repairs: 1 repair, or none at all (0: the first mismatch drops)", () => {
    const one = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      repairs: 1,
      script: scripted([mismatch, mismatch, 'ok']),
    });
    expect(steps(one)).toEqual(['0', '0 repair', '1 drop']);
    const none = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      repairs: 0,
      script: scripted([mismatch, 'ok']),
    });
    expect(steps(none)).toEqual(['0', '1 drop']);
  });

  it('a model that never complies: every backend is repaired, then dropped, and the call stops non-retryable', () => {
    const result = run({ plan: plan({ waits: [10] }), backends: 2, script: () => mismatch });
    expect(steps(result)).toEqual(['0', '0 repair', '0 repair', '1 drop', '1 repair', '1 repair']);
    expect(result.outcome).toBe('non-retryable');
    expect(result.last).toMatchObject({ action: 'drop', state: { dropped: [A, B] } });
    expect(result.last.why).toMatch(/every backend is dropped/);
  });

  it('keeps its count across a same-backend retry in between (a 5xx during a repair), and both restart on another backend', () => {
    const result = run({
      plan: plan({ waits: [10, 10, 10] }),
      backends: 2,
      script: scripted([
        mismatch,
        fail('ServerError'),
        mismatch,
        mismatch,
        fail('ServerError'),
        mismatch,
        'ok',
      ]),
    });
    expect(steps(result)).toEqual([
      '0',
      '0 repair',
      '0 retry-same',
      '0 repair',
      '1 drop',
      '1 retry-same',
      '1 repair',
    ]);
    const last = result.decisions.at(-1)?.decision.state as CallState;
    expect(last).toMatchObject({ backend: B, repairs: 1, sameBackendRetries: 1 });
  });

  it("another backend's attempt (an advance) restarts the count, so a backend met again in a new round has its repairs back", () => {
    const result = run({
      plan: plan({ waits: [10, 10] }),
      backends: 2,
      script: scripted([mismatch, mismatch, fail('RateLimited'), fail('RateLimited'), mismatch, 'ok']),
    });
    expect(steps(result)).toEqual(['0', '0 repair', '0 repair', '1 advance', '0 advance', '0 repair']);
    expect(result.outcome).toBe('succeeded');
  });

  it('is an attempt: it counts toward maxAttempts (the last allowed attempt stops attempts-exhausted)', () => {
    const result = run({ plan: plan({ waits: [10], maxAttempts: 2 }), script: () => mismatch });
    expect(steps(result)).toEqual(['0', '0 repair']);
    expect(result.outcome).toBe('attempts-exhausted');
    expect(result.last.action).toBe('repair');
  });

  it('without a plan, a call makes exactly one attempt: a mismatch ends it', () => {
    const result = run({
      plan: validatePlan(undefined, { nowMs: 0, chainStartMs: 0 }),
      script: () => mismatch,
    });
    expect(result.attempts).toHaveLength(1);
    expect(result.outcome).toBe('attempts-exhausted');
  });

  it('stops deadline when not even an attempt at once fits before the deadline', () => {
    const p = plan({ waits: [10], deadlineInMs: 5_000, reserveMs: 1_000, minAttemptMs: 1_000 });
    const start = startDecision(p, initialState(1), 0);
    const d = decide(p, start.state, mismatch, 3_500, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline', action: 'repair' });
  });

  it('waits for a retry-after the backend asked for, or advances when it is over retryAfter.maxMs', () => {
    const p = plan({ waits: [10], retryAfter: { maxMs: 1_000 } });
    const start = startDecision(p, initialState(2), 0);
    const short = decide(p, start.state, fail('SchemaMismatch', { retryAfterMs: 500 }), 100, fixedRandom(0));
    expect(short).toMatchObject({ kind: 'attempt', backend: A, waitMs: 500, action: 'repair' });
    const long = decide(p, start.state, fail('SchemaMismatch', { retryAfterMs: 5_000 }), 100, fixedRandom(0));
    expect(long).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0, action: 'advance' });
  });

  it("a plan's override wins: SchemaMismatch: 'advance' sends the original request to the next backend", () => {
    const result = run({
      plan: plan({ waits: [10], actions: { SchemaMismatch: 'advance' } }),
      backends: 2,
      script: scripted([mismatch, 'ok']),
    });
    expect(steps(result)).toEqual(['0', '1 advance']);
  });

  it('reads a state saved before repairs existed (no count) as none made', () => {
    const p = plan({ waits: [10] });
    const { repairs: _none, ...old } = startDecision(p, initialState(1), 0).state;
    const d = decide(p, old, mismatch, 100, fixedRandom(0));
    expect(d.state.repairs).toBe(1);
  });
});

describe('a plan may give repair to SchemaMismatch only', () => {
  it('takes it there, and refuses it on any other class, naming the field and the fix', () => {
    expect(plan({ actions: { SchemaMismatch: 'repair' } }).actions).toEqual({ SchemaMismatch: 'repair' });
    expect(() => plan({ actions: { ServerError: 'repair' } })).toThrow(
      /`actions\.ServerError` is 'repair', which only SchemaMismatch can take.*use 'abort', 'retry-same', 'advance' or 'drop'/,
    );
  });
});
