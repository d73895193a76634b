import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../common/call.js';
import type { RecordedRequest } from '../../loopback/index.js';
import type { Evidence } from './run-call.js';
import type { GroupEvidence } from './run-scenario.js';
import type { Scenario } from './scenario.js';
import { checkTenant } from './tenant-invariants.js';
import { leastReservation } from './tenants.js';

/** The tenant oracle on hand-made evidence: each invariant must be able to fail. */
interface Attempt {
  id: string;
  /** Tokens the provider reported (none: no usage on record). */
  billed?: number;
  /** Refused for the envelope (nothing sent unless `sent`). */
  refused?: boolean;
  sent?: boolean;
  /** Failed with this class (no usage unless `billed`). */
  failed?: string;
}

function call(workflowId: string, attempts: Attempt[]): Evidence {
  const records = attempts.map(
    (a, i) =>
      ({
        modelCallId: a.id,
        callId: 'c1',
        attempt: i + 1,
        backend: 0,
        model: 'lp-h0-f0-r0:sc-1',
        startedAt: '2026-12-04T12:00:00.000Z',
        ...(a.refused
          ? {
              outcome: 'failed',
              failure: { class: 'QuotaExhausted', code: 'tenant-envelope', message: 'no room' },
            }
          : a.failed !== undefined
            ? { outcome: 'failed', failure: { class: a.failed, message: '' } }
            : { outcome: 'succeeded' }),
        ...(a.billed !== undefined ? { usage: { inputTokens: 10, outputTokens: a.billed - 10 } } : {}),
      }) as AttemptRecord,
  );
  const requests = attempts
    .filter((a) => a.sent ?? !a.refused)
    .map(
      (a, i) =>
        ({ seq: i + 1, headers: { 'x-request-id': `${workflowId}/${a.id}` } }) as unknown as RecordedRequest,
    );
  return { workflowId, records, requests } as unknown as Evidence;
}

const scenario = (maxTotalTokens: number): Scenario => ({
  chain: [{ kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] }],
  plan: false,
  stream: false,
  tenant: { maxTotalTokens, name: 'sc-300-1' },
});
const group = (calls: Evidence[], maxTotalTokens = 300): GroupEvidence => ({
  scenario: scenario(maxTotalTokens),
  models: ['lp-h0-f0-r0:sc-1'],
  calls,
});
const found = (g: GroupEvidence) => checkTenant(g).map((v) => v.message);

describe('the tenant oracle', () => {
  const least = leastReservation({});

  it('holds when what was sent fits the envelope, across the calls of the case', () => {
    expect(least).toBe(102);
    const g = group([call('a', [{ id: 'c1.1', billed: 100 }]), call('b', [{ id: 'c1.1', billed: 200 }])]);
    expect(found(g)).toEqual([]);
  });

  it('finds calls of one tenant sent more than its envelope, counting each at most its least reservation', () => {
    const g = group([
      call('a', [
        { id: 'c1.1', billed: 100 },
        { id: 'c1.2', billed: 100 },
      ]),
      call('b', [{ id: 'c1.1', billed: 500 }]),
    ]);
    expect(found(g)).toEqual([expect.stringContaining('was sent 302 tokens')]);
    // A case with no tenant holds no envelope.
    const { tenant: _t, ...plain } = g.scenario;
    expect(checkTenant({ ...g, scenario: plain })).toEqual([]);
  });

  it('counts a failure that reported nothing as its least reservation when it may have been billed', () => {
    const g = (failed: string) =>
      group([
        call('a', [
          { id: 'c1.1', billed: 100 },
          { id: 'c1.2', billed: 100 },
          { id: 'c1.3', failed },
        ]),
      ]);
    expect(found(g('ServerError'))).toEqual([]);
    expect(found(g('ConnectionLost'))).toEqual([expect.stringContaining('was sent 302 tokens')]);
  });

  it('counts nothing of an attempt refused for the envelope, and finds one that was sent or was not the last', () => {
    const refusedLast = group([
      call('a', [
        { id: 'c1.1', billed: 100 },
        { id: 'c1.2', refused: true },
      ]),
    ]);
    expect(found(refusedLast)).toEqual([]);
    const sent = group([call('a', [{ id: 'c1.1', refused: true, sent: true }])]);
    expect(found(sent)).toEqual([expect.stringContaining('was refused for its envelope, yet it was sent')]);
    const wentOn = group([
      call('a', [
        { id: 'c1.1', refused: true },
        { id: 'c1.2', billed: 50 },
      ]),
    ]);
    expect(found(wentOn)).toEqual([expect.stringContaining('yet its call went on')]);
  });
});
