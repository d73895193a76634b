import { describe, expect, it } from 'vitest';
import type { HistoryOutlook, HistorySize } from '../../../policy/index.js';
import {
  ATTEMPT_OVERHEAD,
  InvalidRetryPlanError,
  MB,
  decide,
  historyGrowth,
  historyLimitStop,
  initialState,
  nextAttemptGrowth,
  inlinePayloadLimitStop,
  payloadLimitStop,
  turnNearHistoryLimit,
  startDecision,
  validatePlan,
} from '../../../policy/index.js';
import { fail, fixedRandom, plan } from './harness.js';

const ctx = { nowMs: 0, chainStartMs: 0 };

function refusal(raw: unknown): InvalidRetryPlanError {
  try {
    validatePlan(raw, ctx);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

const outlook = (now: HistorySize, extra: Partial<HistoryOutlook> = {}): HistoryOutlook => ({
  now,
  perAttempt: [],
  inputBytes: 1_000,
  ...extra,
});

describe('the historyLimit plan field', () => {
  it('defaults to 40 MB and 40 000 events, with or without a plan', () => {
    expect(validatePlan({}, ctx).historyLimit).toEqual({ bytes: 40 * MB, events: 40_000 });
    expect(validatePlan(undefined, ctx).historyLimit).toEqual({ bytes: 40 * MB, events: 40_000 });
  });

  it('keeps the default of a field left out', () => {
    expect(validatePlan({ historyLimit: { events: 10_000 } }, ctx).historyLimit).toEqual({
      bytes: 40 * MB,
      events: 10_000,
    });
  });

  it('accepts the edges: 1, and 48 MB / 50 000 events', () => {
    expect(validatePlan({ historyLimit: { bytes: 1, events: 1 } }, ctx).historyLimit).toEqual({
      bytes: 1,
      events: 1,
    });
    expect(validatePlan({ historyLimit: { bytes: 48 * MB, events: 50_000 } }, ctx).historyLimit).toEqual({
      bytes: 48 * MB,
      events: 50_000,
    });
  });

  it.each([
    ['not an object', { historyLimit: 40 }, 'historyLimit', /must be an object like \{ bytes/],
    ['an unknown key', { historyLimit: { size: 1 } }, 'historyLimit.size', /not a known field/],
    [
      'a misspelt key',
      { historyLimit: { Bytes: 1 } },
      'historyLimit.Bytes',
      /did you mean `historyLimit.bytes`/,
    ],
    ['0 bytes', { historyLimit: { bytes: 0 } }, 'historyLimit.bytes', /at least 1/],
    ['fractional events', { historyLimit: { events: 10.5 } }, 'historyLimit.events', /whole number/],
    ['bytes as a string', { historyLimit: { bytes: '40MB' } }, 'historyLimit.bytes', /finite number/],
    [
      'bytes at Temporal’s own limit',
      { historyLimit: { bytes: 50 * MB } },
      'historyLimit.bytes',
      /over the most a plan may allow, 50331648 bytes: Temporal terminates a run at 52428800 bytes.*give at most 50331648/,
    ],
    [
      'events over 50 000',
      { historyLimit: { events: 51_200 } },
      'historyLimit.events',
      /Temporal terminates a run at 51200 events.*give at most 50000/,
    ],
  ] as const)('refuses %s, naming the field and the fix', (_name, raw, field, fix) => {
    const error = refusal(raw);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`RetryPlan \`${field}\``);
    expect(error.message).toMatch(fix);
  });
});

describe('what the next attempt adds', () => {
  it('before the first attempt: its input plus the overhead of an attempt', () => {
    expect(nextAttemptGrowth(outlook({ bytes: 0, events: 0 }, { inputBytes: 1_200_000 }))).toEqual({
      bytes: 1_200_000 + ATTEMPT_OVERHEAD.bytes,
      events: ATTEMPT_OVERHEAD.events,
    });
  });

  it('with a payload store the input is a reference: the overhead alone', () => {
    const o = outlook({ bytes: 0, events: 0 }, { inputBytes: 3 * MB, payloadStore: true });
    expect(nextAttemptGrowth(o)).toEqual(ATTEMPT_OVERHEAD);
  });

  it('after attempts: the most any of them added, never less than the overhead', () => {
    const perAttempt = [
      { bytes: 1_300_000, events: 6 },
      { bytes: 1_250_000, events: 11 },
    ];
    expect(nextAttemptGrowth(outlook({ bytes: 0, events: 0 }, { perAttempt, inputBytes: 5 }))).toEqual({
      bytes: 1_300_000,
      events: ATTEMPT_OVERHEAD.events,
    });
    const small = [{ bytes: 3_000, events: 20 }];
    expect(nextAttemptGrowth(outlook({ bytes: 0, events: 0 }, { perAttempt: small }))).toEqual({
      bytes: ATTEMPT_OVERHEAD.bytes,
      events: 20,
    });
  });

  it('the growth between two readings, never negative', () => {
    expect(historyGrowth({ bytes: 100, events: 5 }, { bytes: 350, events: 16 })).toEqual({
      bytes: 250,
      events: 11,
    });
    expect(historyGrowth({ bytes: 100, events: 5 }, { bytes: 50, events: 1 })).toEqual({
      bytes: 0,
      events: 0,
    });
  });
});

describe("an attempt's input over Temporal's payload limit", () => {
  it('fits up to 2 MB less the room of the attempt, and is refused one byte over, with its size and the fix', () => {
    expect(payloadLimitStop(2 * MB - 16 * 1024)).toBeUndefined();
    const why = payloadLimitStop(2 * MB - 16 * 1024 + 1);
    expect(why).toMatch(/the attempt's input is 2\.0 MB \(2080769 bytes\), over Temporal's limit of 2\.0 MB/);
    expect(why).toMatch(/payload store/);
    expect(payloadLimitStop(3 * MB)).toMatch(/3\.0 MB/);
  });

  it('stops the call history-limit before its first attempt', () => {
    const d = startDecision(plan({ waits: [10] }), initialState(2), 0, {
      history: outlook({ bytes: 10_000, events: 5 }, { inputBytes: 2_500_000 }),
    });
    expect(d).toMatchObject({ kind: 'stop', reason: 'history-limit' });
    expect(d.state.attempts).toBe(0);
    expect(d.why).toMatch(/before the first attempt, the attempt's input is 2\.4 MB/);
  });

  it('is left to the payload store when there is one and what stays in the payload fits', () => {
    const o = outlook({ bytes: 10_000, events: 5 }, { inputBytes: 2_500_000, payloadStore: true });
    expect(historyLimitStop(plan({}), o)).toBeUndefined();
    const fits = { inputBytes: 2_500_000, payloadStore: true, inlineBytes: 40_000 };
    expect(historyLimitStop(plan({}), outlook({ bytes: 10_000, events: 5 }, fits))).toBeUndefined();
  });

  it('with a payload store, still stops an input whose short strings alone pass the limit, naming the threshold', () => {
    const o = outlook(
      { bytes: 10_000, events: 5 },
      { inputBytes: 3_000_000, payloadStore: true, inlineBytes: 2_400_000 },
    );
    const why = historyLimitStop(plan({}), o);
    expect(why).toMatch(/keeps 2\.3 MB \(2400000 bytes\) in its payload after the payload store/);
    expect(why).toContain('MODEL_RETRY_PAYLOAD_STORE_THRESHOLD');
    const edge = 2 * MB - 16 * 1024;
    expect(inlinePayloadLimitStop(edge)).toBeUndefined();
    expect(inlinePayloadLimitStop(edge + 1)).toBeDefined();
  });
});

describe('the history limit', () => {
  const p = plan({ waits: [10] });

  it('is not asked without an outlook', () => {
    expect(historyLimitStop(p, undefined)).toBeUndefined();
  });

  it('stops when the history now plus the next attempt would pass historyLimit.bytes, naming the payload store', () => {
    const perAttempt = [{ bytes: 1_300_000, events: 11 }];
    const fits = outlook({ bytes: 40 * MB - 1_300_000, events: 400 }, { perAttempt });
    expect(historyLimitStop(p, fits)).toBeUndefined();
    const over = outlook({ bytes: 40 * MB - 1_299_999, events: 400 }, { perAttempt });
    const why = historyLimitStop(p, over);
    expect(why).toMatch(
      /past `historyLimit.bytes` \(40\.0 MB\): it holds 38\.8 MB and an attempt adds about 1\.2 MB/,
    );
    expect(why).toMatch(/turn on the payload store .*MODEL_RETRY_PAYLOAD_STORE/);
  });

  it('stops when it would pass historyLimit.events', () => {
    const limited = plan({ waits: [10], historyLimit: { events: 1_000 } });
    expect(historyLimitStop(limited, outlook({ bytes: 1_000, events: 988 }))).toBeUndefined();
    expect(historyLimitStop(limited, outlook({ bytes: 1_000, events: 989 }))).toMatch(
      /about 1001 events, past `historyLimit.events` \(1000\).*lower `maxAttempts`/,
    );
  });

  it('a 1.2 MB prompt on a provider that keeps failing, with a deadline: stops history-limit before 40 MB, never terminated', () => {
    // A run seen terminated: each attempt's input carries the prompt; Temporal terminated it at 50 MB (42 attempts).
    const prompt = 1_200_000;
    const long = plan({ waits: [10], deadlineInMs: 3_600_000, reserveMs: 0, retriesPerBackend: 1000 });
    let history: HistorySize = { bytes: prompt + 2_000, events: 3 }; // the workflow's own input holds the prompt
    const perAttempt: HistorySize[] = [];
    let now = 0;
    let d = startDecision(long, initialState(1), now, { history: outlook(history, { inputBytes: prompt }) });
    while (d.kind === 'attempt') {
      const grown = { bytes: history.bytes + prompt + 4_000, events: history.events + 11 };
      perAttempt.push(historyGrowth(history, grown));
      history = grown;
      expect(history.bytes).toBeLessThanOrEqual(40 * MB);
      now += d.waitMs + 100;
      const run = { history: outlook(history, { perAttempt, inputBytes: prompt }) };
      d = decide(long, d.state, fail('ServerError'), now, fixedRandom(0), run);
    }
    expect(d.reason).toBe('history-limit');
    expect(d.state.attempts).toBe(33);
    expect(history.bytes + prompt + 4_000).toBeGreaterThan(40 * MB);
  });
});

describe('turnNearHistoryLimit: a turn continues as new before its next call could reach the limit', () => {
  const p = plan({ waits: [10], historyLimit: { bytes: 1_000_000, events: 1000 } });
  it.each([
    ['far from both limits', { bytes: 100_000, events: 100 }, 10_000, false],
    ['two attempts of the next call pass the events', { bytes: 100_000, events: 980 }, 10_000, true],
    ['two attempts of a long conversation pass the bytes', { bytes: 500_000, events: 100 }, 250_000, true],
    ['exactly at the limit stays', { bytes: 1_000_000 - 2 * (8 * 1024), events: 1000 - 24 }, 0, false],
  ] as const)('%s', (_, now, stepBytes, expected) => {
    expect(turnNearHistoryLimit(p, now, stepBytes)).toBe(expected);
  });
});
