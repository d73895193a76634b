/**
 * Invariants across the calls of one scenario (the main call and its neighbours, on the same workers and
 * backends): only what the contract guarantees for a fleet. Per-worker `maxInFlight` is a hard bound; fleet
 * health's openings are not checked here, because the contract gives workers "about a second" to see a change
 * and the suite's breaker cools for one second (see docs/decisions.md, "Neighbour calls in the scenario suite").
 */
import type { temporal } from '@temporalio/proto';
import { eventTimeMs } from '../../client/history-format.js';
import type { AttemptRecord } from '../../common/call.js';
import type { RecordedRequest } from '../../loopback/index.js';
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
