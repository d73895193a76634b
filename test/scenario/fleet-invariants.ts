/**
 * Invariants across the calls of one scenario (the main call and its neighbours, on the same workers and
 * backends): only what the contract guarantees for a fleet. Per-worker `maxInFlight` is a hard bound; fleet
 * health's openings are not checked here, because the contract gives workers "about a second" to see a change
 * and the suite's breaker cools for one second (see docs/decisions/testing/009-scenario-neighbours-and-fleet.md).
 */
import type { temporal } from '@temporalio/proto';
import { eventTimeMs } from '../../client/history-format.js';
import type { AttemptRecord } from '../../common/call.js';
import { TRANSIENT_CLASSES } from '../../policy/breaker.js';
import type { RecordedRequest } from '../../loopback/index.js';
import { SCENARIO_HEALTH } from './fleet.js';
import { checkTenant } from './tenant-invariants.js';
import type { GroupEvidence } from './run-scenario.js';
import type { Violation } from './stop-oracle.js';

/** One provider request with what the run says of it: its call, record and the worker that ran its attempt. */
interface Sent {
  request: RecordedRequest;
  workflowId: string;
  record?: AttemptRecord;
  /** The identity of the worker whose poll took the attempt (history's `ActivityTaskStarted`). */
  worker?: string;
}

/** Every fleet invariant of a scenario; an empty list when all hold. */
export function checkFleet(g: GroupEvidence, allRequests: RecordedRequest[]): Violation[] {
  const out: Violation[] = [];
  const sent = sentRequests(g);
  out.push(...everyRequestHasItsCall(g, sent, allRequests));
  out.push(...nothingAfterTheClose(g));
  if (g.scenario.limits?.maxInFlight !== undefined)
    out.push(...slotsHold(sent, g.scenario.limits.maxInFlight));
  if (g.scenario.health === true) out.push(...breakersBound(g, sent));
  out.push(...checkTenant(g));
  return out;
}

/** The group's requests, each with its record and the worker that ran it. */
function sentRequests(g: GroupEvidence): Sent[] {
  return g.calls.flatMap((call) => {
    const workers = attemptWorkers(call.history);
    return call.requests.map((request) => {
      const id = request.headers['x-request-id'] ?? '';
      const modelCallId = id.slice(call.workflowId.length + 1);
      const record = call.records.find((r) => r.modelCallId === modelCallId);
      const worker = workers.get(modelCallId);
      return {
        request,
        workflowId: call.workflowId,
        ...(record ? { record } : {}),
        ...(worker !== undefined ? { worker } : {}),
      };
    });
  });
}

/** Which worker's poll took each attempt: activity id (the `modelCallId`) -> identity. */
export function attemptWorkers(history: temporal.api.history.v1.IHistory): Map<string, string> {
  const scheduled = new Map<string, string>();
  const out = new Map<string, string>();
  for (const ev of history.events ?? []) {
    const id = ev.activityTaskScheduledEventAttributes?.activityId;
    if (id) scheduled.set(String(ev.eventId), id);
    const started = ev.activityTaskStartedEventAttributes;
    if (started) {
      const activityId = scheduled.get(String(started.scheduledEventId));
      if (activityId !== undefined && started.identity) out.set(activityId, started.identity);
    }
  }
  return out;
}

/**
 * Every request that reached one of the scenario's models belongs to exactly one of its calls: no attempt of
 * one call answered for another, and none ran without a call to record it.
 */
function everyRequestHasItsCall(g: GroupEvidence, sent: Sent[], all: RecordedRequest[]): Violation[] {
  const out: Violation[] = [];
  const models = new Set(g.models.map((m) => m.slice(m.indexOf(':') + 1)));
  const ours = new Set(sent.map((x) => x.request.seq));
  for (const r of all) {
    if (r.model === undefined || !models.has(r.model) || ours.has(r.seq)) continue;
    out.push({
      invariant: 'fleet',
      message: `request ${r.seq} to ${r.model} (${r.headers['x-request-id'] ?? 'no request id'}) belongs to no call of the case`,
    });
  }
  return out;
}

/** No request of a call reaches the provider after its run closed (its attempts all ended before it did). */
function nothingAfterTheClose(g: GroupEvidence): Violation[] {
  const out: Violation[] = [];
  for (const call of g.calls) {
    const closedAt = eventTimeMs(call.history.events?.at(-1) ?? {});
    for (const r of call.requests.filter((x) => x.receivedAt > closedAt)) {
      out.push({
        invariant: 'fleet',
        message: `${r.headers['x-request-id']} reached the provider ${r.receivedAt - closedAt} ms after its run closed`,
      });
    }
  }
  return out;
}

/**
 * `maxInFlight` (per worker process, on the provider of every loopback backend of the case, so all its models
 * together): no worker had more requests at the provider at once. A request is in flight from its arrival until
 * the earlier of the provider's end and its attempt's own end (`endedAt`, taken before the attempt gives its slot
 * back). A cancelled attempt's end is history's (later than its slot), so it is left out.
 */
function slotsHold(sent: Sent[], maxInFlight: number): Violation[] {
  const out: Violation[] = [];
  const spans = sent.flatMap((x) => {
    if (x.worker === undefined || x.record === undefined || x.record.outcome === 'cancelled') return [];
    const ends = [x.request.endedAt, x.record.endedAt ? Date.parse(x.record.endedAt) : undefined];
    const end = Math.min(...ends.filter((t): t is number => t !== undefined));
    if (!Number.isFinite(end)) return [];
    return [{ x, worker: x.worker, start: x.request.receivedAt, end }];
  });
  for (const a of spans) {
    const together = spans.filter((b) => b.worker === a.worker && b.start <= a.start && a.start < b.end);
    if (together.length > maxInFlight) {
      const ids = together.map((b) => `${b.x.request.headers['x-request-id']} [${b.start}, ${b.end})`);
      out.push({
        invariant: 'fleet',
        message: `worker ${a.worker} had ${together.length} requests in flight at once (maxInFlight ${maxInFlight}): ${ids.join(', ')}`,
      });
    }
  }
  return out;
}

/**
 * Fleet health bounds what a failing backend is sent: once its breaker opens, only probes go until an answer
 * closes it. So the requests to one backend that failed transiently are at most, per closed period (the first,
 * and one after each answer), the trip's failures plus what was already on its way when it tripped (one attempt
 * per call, counted twice for a worker whose copy lags its own opening for a moment, see
 * docs/decisions/testing/009-scenario-neighbours-and-fleet.md), plus
 * one probe per cool-down for each worker that may claim it. Loose on purpose (no timing is asserted), yet a
 * breaker that does not hold lets a call of 3 to 7 attempts and its neighbours past it.
 */
function breakersBound(g: GroupEvidence, sent: Sent[]): Violation[] {
  const out: Violation[] = [];
  const calls = g.calls.length;
  // An in-process worker, the second worker process, and a fresh in-process worker after a kill.
  const workers = 1 + (g.scenario.secondWorker === true ? 1 : 0) + (g.calls.some((c) => c.killed) ? 1 : 0);
  const byModel = new Map<string, Sent[]>();
  for (const x of sent) {
    const model = x.record?.model;
    if (model === undefined) continue;
    byModel.set(model, [...(byModel.get(model) ?? []), x]);
  }
  for (const [model, xs] of byModel) {
    const failed = xs.filter((x) => isTransient(x.record?.failure?.class)).length;
    const answered = xs.filter((x) => x.record?.outcome === 'succeeded').length;
    const arrivals = xs.map((x) => x.request.receivedAt);
    const span = Math.max(...arrivals) - Math.min(...arrivals);
    const probes = workers * (1 + Math.floor(span / SCENARIO_HEALTH.coolDownMs));
    const bound = (1 + answered) * (SCENARIO_HEALTH.trip.failures + 2 * calls) + probes;
    if (failed > bound) {
      out.push({
        invariant: 'fleet',
        message: `${model} was sent ${failed} requests that failed transiently within ${span} ms (${answered} answered, ${calls} call(s), ${workers} worker(s)): more than its breaker lets through (${bound})`,
      });
    }
  }
  return out;
}

function isTransient(c: string | undefined): boolean {
  return c !== undefined && (TRANSIENT_CLASSES as readonly string[]).includes(c);
}
