import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../../policy/index.js';
import type { AttemptRecord } from '../../../common/call.js';
import {
  checkSummary,
  readCheckSummary,
  readWaitSummary,
  waitSummary,
} from '../../../common/ledger/summary.js';

const failedWith = (failure: AttemptRecord['failure']): AttemptRecord => ({
  modelCallId: 'c2.3',
  callId: 'c2',
  attempt: 3,
  backend: 1,
  model: 'local:b',
  startedAt: '2026-01-01T00:00:00.000Z',
  outcome: 'failed',
  ...(failure ? { failure } : {}),
});

describe('the summary of a wait', () => {
  it.each(ACTIONS)('names the attempt and the action %s, and reads back', (action) => {
    const record = failedWith({ class: 'ServerError', status: 502, message: 'bad gateway', action });
    const summary = waitSummary(30, record);
    expect(summary).toBe(`retry in 30 ms after ServerError 502 (c2.3 ${action})`);
    expect(readWaitSummary(summary)).toEqual({ modelCallId: 'c2.3', action });
  });

  it('reads back a wait with no action named', () => {
    const summary = waitSummary(5, failedWith({ class: 'ResponseTimeout', message: 'timed out' }));
    expect(summary).toBe('retry in 5 ms after ResponseTimeout (c2.3)');
    expect(readWaitSummary(summary)).toEqual({ modelCallId: 'c2.3' });
  });

  it.each([
    ['an attempt’s activity', 'attempt 1 · local:a'],
    ['a tool call', 'tool calculator'],
    ['an action that is not one', 'retry in 30 ms after ServerError 502 (c1.1 explode)'],
    ['a tag that is not an attempt', 'retry in 30 ms (later)'],
    ['a tag of three words', 'retry in 30 ms (c1.1 advance now)'],
    ['no tag', 'retry in 30 ms'],
    ['a closing bracket with no opening one', 'c1.1 drop)'],
  ])('reads nothing from %s', (_what, summary) => {
    expect(readWaitSummary(summary)).toBeUndefined();
  });
});

describe('the summary of a cooling check', () => {
  it.each(ACTIONS)('after a failure, names the decision %s and its wait, and reads back', (action) => {
    const record = failedWith({ class: 'RateLimited', status: 429, message: 'slow', action });
    const summary = checkSummary('local:b', 0, record);
    expect(summary).toBe(`cooling check of local:b: retry in 0 ms after RateLimited 429 (c2.3 ${action})`);
    expect(readCheckSummary(summary)).toEqual({ modelCallId: 'c2.3', action, retryInMs: 0 });
  });

  it('before a first attempt names only the model, and tells no decision', () => {
    const summary = checkSummary('local:b', 0, undefined);
    expect(summary).toBe('cooling check of local:b');
    expect(readCheckSummary(summary)).toBeUndefined();
  });

  it('is not read from a wait’s summary', () => {
    expect(readCheckSummary('retry in 30 ms after ServerError 502 (c1.1 retry-same)')).toBeUndefined();
  });
});

/** Every summary the recorded histories' events carry (runs recorded by earlier versions). */
function recordedSummaries(): string[] {
  const summaries: string[] = [];
  for (const folder of ['histories', 'earlier']) {
    const dir = fileURLToPath(new URL(`../../replay/${folder}/`, import.meta.url));
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const history = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as {
        events: { userMetadata?: { summary?: { data?: string } } }[];
      };
      for (const event of history.events) {
        const data = event.userMetadata?.summary?.data;
        if (data) summaries.push(JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as string);
      }
    }
  }
  return summaries;
}

describe('the summaries of recorded runs (test/replay)', () => {
  const waits = recordedSummaries().filter((s) => s.startsWith('retry in '));

  it('hold waits to read', () => {
    expect(waits.length).toBeGreaterThan(5);
  });

  it('read back as the attempt and action they name', () => {
    for (const summary of waits) {
      const named = readWaitSummary(summary);
      const tag = /\((\S+) (\S+)\)$/.exec(summary);
      expect(named, summary).toEqual({ modelCallId: tag?.[1], action: tag?.[2] });
    }
  });

  it.each([
    [
      'retry in 60000 ms after ServerError 502 (c1.1 retry-same)',
      { modelCallId: 'c1.1', action: 'retry-same' },
    ],
    ['retry in 1000 ms after RateLimited 429 (c1.1 advance)', { modelCallId: 'c1.1', action: 'advance' }],
    ['retry in 10 ms after WorkerLost (c1.1 retry-same)', { modelCallId: 'c1.1', action: 'retry-same' }],
    ['retry in 10 ms after ServerError 502 (c2.1 retry-same)', { modelCallId: 'c2.1', action: 'retry-same' }],
  ])('%s', (summary, named) => {
    expect(waits).toContain(summary);
    expect(readWaitSummary(summary)).toEqual(named);
  });
});
