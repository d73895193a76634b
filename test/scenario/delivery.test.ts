import { describe, expect, it } from 'vitest';
import type { CallStreamItem } from '../../client/call-stream.js';
import type { AttemptRecord } from '../../common/call.js';
import { checkDelivery, movedOutRepeat, overlap } from './delivery.js';
import type { DeliveryFacts, SentRequest } from './delivery.js';
import { expectedOutcomes } from './expected.js';
import { checkStopReason } from './stop-oracle.js';
import type { Scenario } from './scenario.js';

/**
 * The oracle of calls that continue cut streams, on hand-made evidence: each invariant holds on a good run and
 * each is broken by the run that breaks it (so that none of them can never fail).
 */
const TEXT = 'alpha bravo charlie delta echo foxtrot golf hotel';

const record = (n: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  modelCallId: `c1.${n}`,
  callId: 'c1',
  attempt: n,
  backend: 0,
  model: 'local:m',
  startedAt: '2026-12-04T00:00:00.000Z',
  outcome: 'failed',
  ...over,
});

/** A stream: per attempt, its start event and its deltas, with offsets in order. */
function streamOf(...attempts: [id: string, ...texts: string[]][]): CallStreamItem[] {
  const items: CallStreamItem[] = [];
  let offset = 0;
  for (const [id, ...texts] of attempts) {
    const attempt = Number(id.split('.')[1]);
    items.push({
      kind: 'event',
      offset: offset++,
      event: { type: 'attempt', callId: 'c1', modelCallId: id, attempt, model: 'local:m' },
    });
    for (const text of texts)
      items.push({ kind: 'delta', offset: offset++, delta: { modelCallId: id, text } });
  }
  return items;
}

/** A good run: c1.1 cut after "alpha bravo ", c1.2 refused (503), c1.3 continues and answers the rest. */
function good(): DeliveryFacts {
  const requests = new Map<string, SentRequest>([
    ['c1.1', { answer: TEXT }],
    ['c1.2', { continuation: { delivered: 'alpha bravo ', form: 'instruction' } }],
    ['c1.3', { continuation: { delivered: 'alpha bravo ', form: 'instruction' }, answer: TEXT.slice(12) }],
  ]);
  return {
    records: [
      record(1, { deliveredChars: 12 }),
      record(2, { deliveredChars: 0, continues: 'c1.1' }),
      record(3, {
        outcome: 'succeeded',
        deliveredChars: TEXT.length - 12,
        continues: 'c1.1',
        continuation: { form: 'instruction' },
      }),
    ],
    items: streamOf(
      ['c1.1', 'alpha ', 'bravo '],
      ['c1.2'],
      ['c1.3', 'charlie ', 'delta echo foxtrot golf hotel'],
    ),
    resultText: TEXT,
    requests,
    wholeAnswers: [TEXT],
  };
}

const messages = (f: DeliveryFacts) => checkDelivery(f).map((v) => v.message);

describe('checkDelivery (onCut continue)', () => {
  it('holds on a call whose cut text the next attempts continue', () => {
    expect(checkDelivery(good())).toEqual([]);
  });

  it('finds a delta delivered twice (one offset twice)', () => {
    const f = good();
    f.items.push({ ...(f.items[1] as CallStreamItem) });
    expect(messages(f)).toContain('an offset was delivered twice');
  });

  it('finds an answer that is not what subscribers read', () => {
    expect(messages({ ...good(), resultText: `alpha bravo ${TEXT}` })).toEqual([
      `the answer is ${JSON.stringify(`alpha bravo ${TEXT}`)}, subscribers read ${JSON.stringify(TEXT)}`,
    ]);
  });

  it('finds an answer that leaves out a head the model repeated and subscribers read', () => {
    const f = good();
    f.items = streamOf(
      ['c1.1', 'alpha ', 'bravo '],
      ['c1.2'],
      ['c1.3', 'bravo charlie ', 'delta echo foxtrot golf hotel'],
    );
    f.requests = new Map(f.requests).set('c1.3', {
      continuation: { delivered: 'alpha bravo ', form: 'instruction' },
      answer: `bravo ${TEXT.slice(12)}`,
    });
    f.records[2] = { ...(f.records[2] as AttemptRecord), deliveredChars: TEXT.length - 6 };
    // What the provider sent was delivered faithfully (a short repeat is not trimmed): only the answer's text
    // must then hold it, and it does not.
    f.resultText = TEXT;
    expect(messages(f).some((m) => m.startsWith('the answer is'))).toBe(true);
  });

  it("finds an answer whose content's text is not its text", () => {
    expect(messages({ ...good(), resultContentText: 'charlie delta echo foxtrot golf hotel' })).toEqual([
      `the answer's content holds the text "charlie delta echo foxtrot golf hotel", its text is ${JSON.stringify(TEXT)}`,
    ]);
    expect(checkDelivery({ ...good(), resultContentText: TEXT })).toEqual([]);
  });

  it('finds a deliveredChars that is not what the stream holds, counted in UTF-16 units as `length` counts', () => {
    const f = good();
    f.records[0] = { ...(f.records[0] as AttemptRecord), deliveredChars: 11 };
    expect(messages(f)).toEqual(['c1.1: deliveredChars 11, the stream holds 12 of its characters']);
    const emoji: DeliveryFacts = {
      records: [
        // An emoji is two units.
        record(1, { deliveredChars: 3 }),
        record(2, { outcome: 'succeeded', deliveredChars: 1, continues: 'c1.1' }),
      ],
      items: streamOf(['c1.1', '😀 '], ['c1.2', 'x']),
      resultText: '😀 x',
      requests: new Map([
        ['c1.1', { answer: '😀 x' }],
        ['c1.2', { continuation: { delivered: '😀 ', form: 'instruction' as const }, answer: 'x' }],
      ]),
      wholeAnswers: [],
    };
    expect(checkDelivery(emoji)).toEqual([]);
  });

  it('finds a continues that names no attempt that delivered, or not the one cut last', () => {
    const f = good();
    f.records[1] = { ...(f.records[1] as AttemptRecord), continues: undefined };
    f.records[0] = { ...(f.records[0] as AttemptRecord), continues: 'c1.0' };
    expect(messages(f)).toEqual([
      'c1.1 says it continues c1.0, but no earlier attempt delivered text',
      'c1.2 continues nothing, the attempt cut last is c1.1',
    ]);
  });

  it('finds a request that did not ask to continue what subscribers had read', () => {
    const f = good();
    f.requests = new Map(f.requests)
      .set('c1.2', { continuation: { delivered: 'alpha ', form: 'instruction' } })
      .set('c1.1', { continuation: { delivered: 'x', form: 'instruction' }, answer: TEXT });
    expect(messages(f)).toEqual([
      'c1.1 asked to continue "x"; nothing was delivered',
      'c1.2 asked to continue "alpha " (instruction), but subscribers had read "alpha bravo "',
    ]);
    // A prefill leaves the trailing whitespace out.
    const prefill = good();
    prefill.requests = new Map(prefill.requests).set('c1.2', {
      continuation: { delivered: 'alpha bravo', form: 'prefill' },
    });
    expect(checkDelivery(prefill)).toEqual([]);
  });

  it('finds a stopped call whose partialText is not every delivered character', () => {
    const f = good();
    f.records = f.records.slice(0, 2);
    f.items = streamOf(['c1.1', 'alpha ', 'bravo '], ['c1.2']);
    delete f.resultText;
    expect(checkDelivery({ ...f, stopped: { partialText: 'alpha bravo ' } })).toEqual([]);
    expect(messages({ ...f, stopped: { partialText: 'bravo ' } })).toEqual([
      'stopped with partialText "bravo ", subscribers read "alpha bravo "',
    ]);
  });

  it('finds a late delta of an earlier attempt, which a reader would not show', () => {
    const f = good();
    f.items.push({ kind: 'delta', offset: 99, delta: { modelCallId: 'c1.1', text: 'late ' } });
    f.records[0] = { ...(f.records[0] as AttemptRecord), deliveredChars: 17 };
    const found = messages(f);
    expect(found).toContain('c1.1 delivered after c1.3 had');
    expect(found.some((m) => m.startsWith('a reader shows'))).toBe(true);
  });

  it('checks the trimmed head against the overlap rule', () => {
    // The model restarted from the beginning: the 20 delivered characters it repeats are trimmed.
    const delivered = 'alpha bravo charlie ';
    expect(overlap(delivered, TEXT)).toBe(20);
    expect(overlap('alpha bravo ', TEXT)).toBe(0);
    const f: DeliveryFacts = {
      records: [
        record(1, { deliveredChars: 20 }),
        record(2, {
          outcome: 'succeeded',
          deliveredChars: TEXT.length - 20,
          continues: 'c1.1',
          continuation: { form: 'instruction', trimmed: 20 },
        }),
      ],
      items: streamOf(['c1.1', delivered], ['c1.2', TEXT.slice(20)]),
      resultText: TEXT,
      requests: new Map([
        ['c1.1', { answer: TEXT }],
        ['c1.2', { continuation: { delivered, form: 'instruction' as const }, answer: TEXT }],
      ]),
      wholeAnswers: [TEXT],
    };
    expect(checkDelivery(f)).toEqual([]);
    // Not trimmed: the repeated head is delivered again.
    const untrimmed: DeliveryFacts = {
      ...f,
      records: [
        record(1, { deliveredChars: 20 }),
        record(2, {
          outcome: 'succeeded',
          deliveredChars: TEXT.length,
          continues: 'c1.1',
          continuation: { form: 'instruction' },
        }),
      ],
      items: streamOf(['c1.1', delivered], ['c1.2', TEXT]),
      resultText: delivered + TEXT,
    };
    expect(messages(untrimmed)).toEqual([
      `c1.2 trimmed 0 characters of ${JSON.stringify(TEXT)}; the overlap rule trims 20 (its head repeats the ` +
        'last 20 characters delivered; the rule trims a repeat of at least 20 characters)',
    ]);
  });

  it('counts the overlap in UTF-16 units, as `deliveredChars` and JavaScript do', () => {
    // Three words of three wide characters each: 21 UTF-16 units. A restart repeats them all, at least 20 units:
    // the rule trims 21, and a continuation that published the restart whole broke it.
    const word = (c: string) => `${c}${c}${c} `;
    const delivered = ['\u{1F34E}', '\u{1F350}', '\u{1F34A}'].map(word).join('');
    const whole = `${delivered}${word('\u{1F34B}')}`;
    expect(delivered.length).toBe(21);
    expect(overlap(delivered, whole)).toBe(21);
    const facts = (trimmed: number, published: string): DeliveryFacts => ({
      records: [
        record(1, { deliveredChars: delivered.length }),
        record(2, {
          outcome: 'succeeded',
          deliveredChars: published.length,
          continues: 'c1.1',
          continuation: { form: 'instruction', ...(trimmed ? { trimmed } : {}) },
        }),
      ],
      items: streamOf(['c1.1', delivered], ['c1.2', published]),
      resultText: delivered + published,
      requests: new Map([
        ['c1.1', { answer: whole }],
        ['c1.2', { continuation: { delivered, form: 'instruction' as const }, answer: whole }],
      ]),
      wholeAnswers: [whole],
    });
    expect(checkDelivery(facts(21, word('\u{1F34B}')))).toEqual([]);
    expect(messages(facts(0, whole))[0]).toMatch(
      /^c1\.2 trimmed 0 characters .*; the overlap rule trims 21 /,
    );
  });

  it('finds text an attempt delivered that its provider never sent', () => {
    const f = good();
    f.items = streamOf(
      ['c1.1', 'alpha ', 'bravo '],
      ['c1.2'],
      ['c1.3', 'charlie ', 'delta echo foxtrot golf hotel!'],
    );
    f.records[2] = { ...(f.records[2] as AttemptRecord), deliveredChars: TEXT.length - 11 };
    f.resultText = `${TEXT}!`;
    expect(messages(f)).toEqual([
      `c1.3 delivered ${JSON.stringify(`${TEXT.slice(12)}!`)}, not what the provider sent after 0 trimmed characters (${JSON.stringify(TEXT.slice(12))})`,
    ]);
  });
});

describe('outcomes and stop reasons under onCut continue', () => {
  const T = 10_000;
  it('a cut after deltas keeps its own class, never StreamInterrupted', () => {
    for (const fault of [
      { kind: 'stream-cut' as const, chunks: 2 },
      { kind: 'cut' as const },
      { kind: 'clean-cut' as const },
    ]) {
      expect(expectedOutcomes(fault, true, T, true, true)).toEqual(['ConnectionLost']);
      expect(expectedOutcomes(fault, true, T, true, false)).toContain('StreamInterrupted');
    }
    // A stall past the attempt's timeout after delivering: the timeout's class (or, with no plan, the cut's).
    expect(new Set(expectedOutcomes({ kind: 'stall', chunks: 2 }, true, 1000, true, true))).toEqual(
      new Set(['ResponseTimeout', 'ConnectionLost']),
    );
    expect(expectedOutcomes({ kind: 'stall', chunks: 2 }, true, 1000, true, false)).toContain(
      'StreamInterrupted',
    );
  });

  it('a call under continue never stops stream-interrupted', () => {
    const s: Scenario = {
      chain: [{ kind: 'loopback', faults: [{ kind: 'stream-cut', chunks: 2 }] }],
      plan: { maxAttempts: 1, attemptTimeoutMs: 1000 },
      stream: true,
      onCut: 'continue',
    };
    const cut = {
      record: record(1, {
        failure: { class: 'ConnectionLost', message: 'cut', action: 'retry-same' },
        deliveredChars: 12,
      } as Partial<AttemptRecord>),
    };
    expect(checkStopReason(s, [cut], 'attempts-exhausted')).toEqual([]);
    expect(checkStopReason(s, [cut], 'stream-interrupted').map((v) => v.invariant)).toEqual(['stop-reason']);
    const { onCut: _, ...stop } = s;
    const interrupted = {
      record: record(1, {
        failure: { class: 'StreamInterrupted', message: 'cut' },
      } as Partial<AttemptRecord>),
    };
    expect(checkStopReason(stop, [interrupted], 'stream-interrupted')).toEqual([]);
  });

  it("a 400 to the instruction after a refused prefill is the plan's, as any 400 is", () => {
    const s: Scenario = {
      chain: [{ kind: 'loopback', faults: [] }],
      plan: { waits: [10, 10, 10], maxAttempts: 4, attemptTimeoutMs: 1000, retriesPerBackend: 3 },
      stream: true,
      onCut: 'continue',
      prefill: true,
    };
    const cut = {
      record: record(1, {
        failure: { class: 'ConnectionLost', message: 'cut', action: 'retry-same' },
      } as Partial<AttemptRecord>),
    };
    const again = {
      record: record(2, {
        failure: { class: 'BadRequest', message: 'BadRequest', action: 'abort', status: 400 },
        continuation: { form: 'instruction', prefillRefused: true },
        continues: 'c1.1',
      } as Partial<AttemptRecord>),
    };
    expect(checkStopReason(s, [cut, again], 'non-retryable')).toEqual([]);
  });

  it("a prefill's trim is the moved-out whitespace its answer repeats", () => {
    expect(movedOutRepeat('alpha bravo ', ' charlie')).toBe(1);
    expect(movedOutRepeat('alpha bravo ', 'charlie')).toBe(0);
    expect(movedOutRepeat('alpha bravo', ' charlie')).toBe(0);
  });
});
