import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../common/call.js';
import type { RecordedRequest } from '../../loopback/index.js';
import { checkFleet } from './fleet-invariants.js';
import type { Evidence } from './run-call.js';
import type { GroupEvidence } from './run-scenario.js';
import type { Scenario } from './scenario.js';

/**
 * The fleet oracle on hand-made evidence: each invariant must be able to fail (the randomized runs only ever show
 * that it held).
 */
const T0 = Date.parse('2026-12-02T12:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

interface Attempt {
  id: string;
  worker: string;
  /** Arrival at the provider and end of the attempt, ms after T0. */
  from: number;
  to: number;
  /** A failed attempt's class (else it answered). */
  failed?: string;
}

function call(workflowId: string, attempts: Attempt[], closedAt = 10_000): Evidence {
  // Plain numbers where the proto types want Longs: what the oracle reads of them is the same.
  const events: Record<string, unknown>[] = [];
  let eventId = 1;
  for (const a of attempts) {
    const scheduled = eventId++;
    events.push({ eventId: scheduled, activityTaskScheduledEventAttributes: { activityId: a.id } });
    events.push({
      eventId: eventId++,
      activityTaskStartedEventAttributes: { scheduledEventId: scheduled, identity: a.worker },
    });
  }
  const closed = T0 + closedAt;
  events.push({
    eventId,
    eventTime: { seconds: Math.floor(closed / 1000), nanos: (closed % 1000) * 1e6 },
  });
  const records = attempts.map(
    (a, i) =>
      ({
        modelCallId: a.id,
        callId: 'c1',
        attempt: i + 1,
        backend: 0,
        model: 'lp-h0-f1-r0:sc-1',
        startedAt: iso(a.from),
        endedAt: iso(a.to),
        ...(a.failed !== undefined
          ? { outcome: 'failed', failure: { class: a.failed, action: 'retry-same', message: '' } }
          : { outcome: 'succeeded' }),
      }) as AttemptRecord,
  );
  const requests = attempts.map(
    (a, i) =>
      ({
        seq: i + 1,
        receivedAt: T0 + a.from,
        endedAt: T0 + a.to,
        model: 'sc-1',
        headers: { 'x-request-id': `${workflowId}/${a.id}` },
      }) as unknown as RecordedRequest,
  );
  const history = { events } as unknown as temporal.api.history.v1.IHistory;
  return { workflowId, records, requests, history } as unknown as Evidence;
}

const scenario: Scenario = {
  chain: [{ kind: 'loopback', faults: [{ kind: 'ok', delayMs: 0 }] }],
  plan: false,
  stream: false,
  limits: { maxInFlight: 1 },
};

function group(calls: Evidence[], s: Scenario = scenario): GroupEvidence {
  return { scenario: s, models: ['lp-h0-f1-r0:sc-1'], calls };
}

/** `n` attempts of one call, one after another every `everyMs`, each failing with `failed`. */
function failing(n: number, everyMs: number, failed = 'ServerError'): Attempt[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `c1.${i + 1}`,
    worker: 'w1',
    from: i * everyMs,
    to: i * everyMs + 10,
    failed,
  }));
}

describe('the fleet oracle', () => {
  it('holds when one worker sends one request at a time, and another worker one beside it', () => {
    const g = group([
      call('a', [{ id: 'c1.1', worker: 'w1', from: 0, to: 100 }]),
      call('b', [
        { id: 'c1.1', worker: 'w1', from: 100, to: 200 },
        { id: 'c1.2', worker: 'w2', from: 50, to: 150 },
      ]),
    ]);
    expect(
      checkFleet(
        g,
        g.calls.flatMap((c) => c.requests),
      ),
    ).toEqual([]);
  });

  it('finds two requests of one worker in flight at once under maxInFlight 1', () => {
    const g = group([
      call('a', [{ id: 'c1.1', worker: 'w1', from: 0, to: 100 }]),
      call('b', [{ id: 'c1.1', worker: 'w1', from: 99, to: 200 }]),
    ]);
    const found = checkFleet(
      g,
      g.calls.flatMap((c) => c.requests),
    );
    expect(found.map((v) => v.message)).toEqual([expect.stringContaining('worker w1 had 2 requests')]);
  });

  it('finds a request of the case that no call sent, and one that came after its call closed', () => {
    // The run closed 50 ms after its one request arrived at 100 ms.
    const g = group([call('a', [{ id: 'c1.1', worker: 'w1', from: 100, to: 120 }], 50)]);
    const stray = { seq: 9, receivedAt: T0, model: 'sc-1', headers: {} } as unknown as RecordedRequest;
    const found = checkFleet(g, [...g.calls.flatMap((c) => c.requests), stray]);
    expect(found.map((v) => v.message)).toEqual([
      expect.stringContaining('belongs to no call'),
      expect.stringContaining('after its run closed'),
    ]);
  });

  it('bounds the transient failures a backend under fleet health is sent, and only under fleet health', () => {
    const health: Scenario = { ...scenario, health: true };
    const check = (g: GroupEvidence) =>
      checkFleet(
        g,
        g.calls.flatMap((c) => c.requests),
      ).map((v) => v.message);
    // One call, one worker, 1.4 s: the trip's 2 failures, 2 on their way, 2 probes.
    expect(check(group([call('a', failing(6, 200))], health))).toEqual([]);
    expect(check(group([call('a', failing(7, 200))], health))).toEqual([
      expect.stringContaining('was sent 7 requests that failed transiently'),
    ]);
    // Without health nothing holds them back; a failure that does not count toward a trip is not bounded either.
    expect(check(group([call('a', failing(7, 200))]))).toEqual([]);
    expect(check(group([call('a', failing(7, 200, 'InvalidRequest'))], health))).toEqual([]);
    // An answer closes the breaker: a closed period more.
    const answeredOnce = [...failing(7, 200), { id: 'c1.8', worker: 'w1', from: 1500, to: 1510 }];
    expect(check(group([call('a', answeredOnce)], health))).toEqual([]);
  });
});
