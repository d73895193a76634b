import { eventTimeMs, eventTypeName } from '../../client/history-format.js';
import type { AttemptRecord, ModelCallFailedDetails, ModelCallResult } from '../../common/call.js';
import { checkDelivery } from './delivery.js';
import type { SentRequest } from './delivery.js';
import { expectedOutcomes } from './expected.js';
import { attemptWorkers } from './fleet-invariants.js';
import type { RecordedRequest } from '../../loopback/index.js';
import type { Evidence } from './run-scenario.js';
import type { Fault } from './scenario.js';
import { ANSWER, CLEAN_CUT_TEXT, CONTINUE_ANSWER, CONTINUE_WIDE } from './scripts.js';
import { checkActions, checkBudget, checkStopReason, KNOWN } from './stop-oracle.js';
import { refusedForEnvelope } from './tenants.js';
import type { Attempt, Violation } from './stop-oracle.js';

/** Classes a record may carry when no request reached the provider (nothing was sent). */
const NO_REQUEST_CLASSES = new Set(['Misconfigured', 'ConnectFailed', 'WorkerLost', 'CoolingDown']);

/** Every invariant of the suite, checked on one run's evidence; an empty list when all hold. */
export function checkInvariants(e: Evidence): Violation[] {
  const out: Violation[] = [];
  const v = (invariant: string, message: string, known?: string) =>
    out.push({ invariant, message, ...(known ? { known } : {}) });

  // The call's records equal the ones rebuilt from history, and the ones in its result or failure.
  const events = e.history.events ?? [];
  const cancelAt = events.findIndex((ev) => eventTypeName(ev) === 'WorkflowExecutionCancelRequested');
  if (canon(e.fromHistory.attempts) !== canon(e.records)) {
    // Under a cancel, a record the workflow keeps but history cannot show is a decision (or an attempt) made after
    // the cancel: the same defect as K1, seen from the records.
    v(
      'history',
      `records rebuilt from history differ:\n  workflow ${canon(e.records)}\n  history  ${canon(e.fromHistory.attempts)}`,
      cancelAt !== -1 ? KNOWN.cancel : undefined,
    );
  }
  const result = e.result as ModelCallResult | undefined;
  const details = e.failure?.details?.[0] as ModelCallFailedDetails | undefined;
  if (result && canon(result.attempts) !== canon(e.records)) v('history', 'the result carries other records');
  if (details && canon(details.attempts) !== canon(e.records.slice(-20)))
    v('history', 'ModelCallFailed carries other records');

  // No run ends TERMINATED or TIMED_OUT; a cancelled workflow ends CANCELED and starts nothing after the cancel.
  if (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(e.status)) v('status', `the run ended ${e.status}`);
  if (cancelAt !== -1) {
    if (e.status !== 'CANCELLED') {
      v('cancel', `cancel requested, but the run ended ${e.status} (${stopReasonOf(e)})`, KNOWN.cancel);
    }
    const after = events
      .slice(cancelAt)
      .filter((ev) => ev.activityTaskScheduledEventAttributes?.activityType?.name === 'modelRequest');
    if (after.length > 0)
      v('cancel', `${after.length} attempt(s) scheduled after the cancel request`, KNOWN.cancel);
  } else if (e.status === 'CANCELLED') {
    v('cancel', 'the run ended CANCELED but no cancel was requested');
  }

  // CoolingDown is fleet health's or a limit's answer, or an attempt that started with less than minAttemptMs of
  // its time left (it waited for a worker: see
  // docs/decisions/fleet-health-limits/012-nothing-sent-is-cooling-down.md): a call on
  // backends with neither never meets it otherwise.
  if (!e.scenario.health && !e.scenario.limits) {
    const startMs = eventTimeMs(events[0] ?? {});
    for (const r of e.records.filter(
      (x) => x.failure?.class === 'CoolingDown' && !startedTooLate(e, x, startMs) && !tenantWaits(e, x),
    )) {
      v(
        'cooling',
        `${r.modelCallId} is CoolingDown (${r.failure?.message}), but the call's backends have no fleet health ` +
          'and no limits, and it started with time to send',
      );
    }
  }

  const attempts = matchRequests(e, out);
  if (cancelAt === -1) checkEnd(e, attempts, out);
  if (e.streamItems && e.scenario.onCut === 'continue') out.push(...checkDelivery(deliveryFacts(e)));
  else if (e.streamItems) checkStream(e, out);
  if (e.scenario.onCut !== 'continue') {
    // Only a call that continues cut streams counts delivered characters and names what an attempt continued.
    for (const r of e.records.filter((x) => x.deliveredChars !== undefined || x.continues !== undefined)) {
      v(
        'stream',
        `${r.modelCallId} has deliveredChars ${r.deliveredChars} / continues ${r.continues} under 'stop'`,
      );
    }
  }
  return out;
}

/** Matches every provider request to exactly one record by X-Request-Id; checks each record's class. */
function matchRequests(e: Evidence, out: Violation[]): Attempt[] {
  const byId = new Map<string, number>();
  for (const r of e.requests) {
    const id = r.headers['x-request-id'] ?? '';
    byId.set(id, (byId.get(id) ?? 0) + 1);
  }
  const ids = new Set(e.records.map((r) => `${e.workflowId}/${r.modelCallId}`));
  // A continuation whose prefill was refused asked again at once within its attempt: its record says so.
  const twice = new Set(
    e.records.filter((r) => r.continuation?.prefillRefused).map((r) => `${e.workflowId}/${r.modelCallId}`),
  );
  for (const [id, n] of byId) {
    if (!ids.has(id)) out.push({ invariant: 'requests', message: `request ${id} matches no record` });
    if (n > (twice.has(id) ? 2 : 1))
      out.push({ invariant: 'requests', message: `${n} requests carry ${id}` });
  }
  const startMs = eventTimeMs(e.history.events?.[0] ?? {});
  const started = attemptWorkers(e.history);
  return e.records.map((record) => {
    // The attempt's last request decided its outcome (after a refused prefill, the instruction's).
    const request = e.requests.findLast(
      (r) => r.headers['x-request-id'] === `${e.workflowId}/${record.modelCallId}`,
    );
    const got = record.outcome === 'failed' ? (record.failure?.class ?? '?') : record.outcome;
    const where = `${record.modelCallId} on backend ${record.backend}`;
    if (request === undefined) {
      const cancelled = record.outcome === 'cancelled' && e.cancelSent;
      // A worker killed before it sent: Temporal ends the attempt with whichever timeout comes first, and the
      // attempt's own (start-to-close) or the deadline's (schedule-to-close) come before the heartbeat timeout,
      // both `ResponseTimeout` by the contract's timeout table; nothing tells the workflow the dead worker had not
      // sent. (Seen in CI: seed 1680689586 case 20, a neighbour's first attempt on the worker killed at the main
      // call's first request.)
      const diedUnsent = e.killed && got === 'ResponseTimeout';
      // No worker ever started it (no `ActivityTaskStarted`): e.g. scheduled on a limit queue while a killed
      // worker's replacement was not polling yet, until the deadline. (Seed 4242, cases 11 and 37.)
      const neverStarted = !started.has(record.modelCallId) && record.outcome === 'failed';
      if (
        !NO_REQUEST_CLASSES.has(got) &&
        !refusedForEnvelope(record) &&
        !cancelled &&
        !diedUnsent &&
        !neverStarted
      ) {
        // Temporal's schedule-to-close (the deadline less the reserve) ended an attempt that had not sent yet.
        const unsent = got === 'ResponseTimeout' && e.scenario.health === true;
        out.push({
          invariant: 'requests',
          message:
            `${where} (${got}) has no request (${record.startedAt} .. ${record.endedAt}; ` +
            `${(record.failure?.message ?? '').slice(0, 200)})`,
          ...(unsent ? { known: KNOWN.unsentTimeout } : {}),
        });
      }
      return { record };
    }
    const b = e.scenario.chain[record.backend];
    const faults = b?.kind === 'loopback' ? b.faults : [];
    const fault = faults[Math.min(request.stepIndex ?? 0, faults.length - 1)];
    if (fault === undefined) return { record };
    // The request's own timeout is what is left of T once it could send (after a maxInFlight slot wait): the
    // attempt's end is T after its start, whenever its request went out.
    const t = timeoutOf(e, record, startMs);
    const left = Math.min(t, Date.parse(record.startedAt) + t - request.receivedAt);
    const continues = e.scenario.onCut === 'continue';
    const allowed = expectedOutcomes(fault, e.scenario.stream, left, e.scenario.scriptsStream, continues);
    // A streamed attempt that fails after a delta got out is StreamInterrupted, whatever ended it (a timeout too);
    // under `continue` it keeps its own class, and is never StreamInterrupted.
    if (!continues && e.scenario.stream && (record.streamedDeltas ?? 0) > 0 && canDeliver(fault))
      allowed.push('StreamInterrupted');
    if (continues && got === 'StreamInterrupted') {
      out.push({
        invariant: 'stream',
        message: `${where} is StreamInterrupted under onCut 'continue' (${record.failure?.message ?? ''})`,
      });
    }
    if (
      !continues &&
      e.scenario.stream &&
      record.outcome === 'failed' &&
      (record.streamedDeltas ?? 0) > 0 &&
      got !== 'StreamInterrupted'
    ) {
      out.push({
        invariant: 'stream',
        message: `${where} delivered deltas but failed as ${got}, not StreamInterrupted`,
      });
    }
    if (e.cancelSent) allowed.push('cancelled');
    if (e.killed) allowed.push('WorkerLost');
    if (!allowed.includes(got)) {
      const known =
        fault.kind === 'empty-length'
          ? KNOWN.emptyLength
          : fault.kind === 'clean-cut' && e.scenario.stream && e.scenario.scriptsStream !== false
            ? KNOWN.cleanCut
            : undefined;
      out.push({
        invariant: 'class',
        message:
          `${where}: fault ${JSON.stringify(fault)} recorded as ${got}, expected ${allowed.join(' | ')} ` +
          `(T ${t} ms, ${left} ms of it left at the request; ${record.startedAt} .. ${record.endedAt}; ` +
          `${(record.failure?.message ?? '').slice(0, 200)})`,
        ...(known ? { known } : {}),
      });
    }
    return { record, fault };
  });
}

/** Whether a fault sends any text before it ends. */
function canDeliver(fault: Fault): boolean {
  return ['ok', 'cut', 'stream-cut', 'stall', 'clean-cut'].includes(fault.kind);
}

/** Leeway for the activity's own clock readings, a little after the record's `startedAt`. */
const CLOCK_SLACK_MS = 100;

/**
 * Whether an attempt started with less than `minAttemptMs` of its time T left (the deadline less the reserve, or
 * its `attemptTimeoutMs`), so that it could send nothing.
 */
/**
 * A tenant's attempt waits (`CoolingDown`, nothing sent) while other workers' leases hold its envelope's room or
 * its ledger cannot be reached: its message names the tenant.
 */
function tenantWaits(e: Evidence, record: AttemptRecord): boolean {
  const name = e.scenario.tenant?.name;
  return name !== undefined && (record.failure?.message ?? '').includes(`tenant ${name}`);
}

function startedTooLate(e: Evidence, record: AttemptRecord, workflowStartMs: number): boolean {
  const plan = e.scenario.plan;
  if (plan === false) return false;
  const least = plan.deadline?.minAttemptMs ?? 100;
  return timeoutOf(e, record, workflowStartMs) < least + CLOCK_SLACK_MS;
}

/** The attempt's own timeout T = min(attemptTimeoutMs, deadline − reserve − its start). */
function timeoutOf(e: Evidence, record: AttemptRecord, workflowStartMs: number): number {
  const plan = e.scenario.plan;
  if (plan === false) return 300_000;
  if (!plan.deadline) return plan.attemptTimeoutMs;
  const until = workflowStartMs + plan.deadline.inMs - plan.deadline.reserveMs;
  return Math.min(plan.attemptTimeoutMs, until - Date.parse(record.startedAt));
}

/** An uncancelled call: its status agrees with its records, and its stop reason with the contract's order. */
function checkEnd(e: Evidence, attempts: Attempt[], out: Violation[]): void {
  const last = e.records.at(-1);
  const succeeded = e.records.filter((r) => r.outcome === 'succeeded');
  if (succeeded.length > 0 && (succeeded.length > 1 || last?.outcome !== 'succeeded')) {
    out.push({ invariant: 'status', message: 'an answer was not the last attempt' });
  }
  const reason = stopReasonOf(e);
  if (e.fromHistory.stopReason !== reason) {
    out.push({
      invariant: 'history',
      message: `history reader says ${e.fromHistory.stopReason}, the call ${reason}`,
    });
  }
  out.push(...checkActions(e.scenario, attempts));
  out.push(...checkBudget(e.scenario, attempts, e.models));
  if (last?.outcome === 'succeeded') {
    if (e.status !== 'COMPLETED')
      out.push({ invariant: 'status', message: `an answer, but the run ended ${e.status}` });
    return;
  }
  if (e.status === 'COMPLETED') out.push({ invariant: 'status', message: 'completed without an answer' });
  if (e.killed || e.records.some((r) => r.outcome === 'running')) return;
  out.push(...checkStopReason(e.scenario, attempts, reason, e.models));
}

function stopReasonOf(e: Evidence): string | undefined {
  if (e.status === 'COMPLETED') return (e.result as ModelCallResult | undefined)?.stopReason;
  if (e.status === 'CANCELLED') return 'cancelled';
  return (e.failure?.details?.[0] as ModelCallFailedDetails | undefined)?.stopReason;
}

/** Delivered text is never sent twice: one attempt at most delivers, and what it delivered is what it answered. */
function checkStream(e: Evidence, out: Violation[]): void {
  const items = e.streamItems ?? [];
  const deltas = items.flatMap((i) => (i.kind === 'delta' ? [i] : []));
  const offsets = items.flatMap((i) => (i.offset === undefined ? [] : [i.offset]));
  if (new Set(offsets).size !== offsets.length)
    out.push({ invariant: 'stream', message: 'an offset was delivered twice' });
  const byAttempt = new Map<string, string>();
  for (const d of deltas)
    byAttempt.set(d.delta.modelCallId, (byAttempt.get(d.delta.modelCallId) ?? '') + d.delta.text);
  if (byAttempt.size > 1) {
    out.push({
      invariant: 'stream',
      message: `${byAttempt.size} attempts delivered text: ${JSON.stringify([...byAttempt])}`,
    });
  }
  for (const [id, text] of byAttempt) {
    if ([ANSWER, CONTINUE_ANSWER, CONTINUE_WIDE, CLEAN_CUT_TEXT].every((whole) => !whole.startsWith(text))) {
      out.push({
        invariant: 'stream',
        message: `${id} delivered ${JSON.stringify(text)}, more than the provider sent`,
      });
    }
  }
  for (const r of e.records) {
    const delivered = (byAttempt.get(r.modelCallId) ?? '') !== '';
    if (delivered !== (r.streamedDeltas ?? 0) > 0) {
      out.push({
        invariant: 'stream',
        message: `${r.modelCallId}: streamedDeltas ${r.streamedDeltas} but delivered ${delivered}`,
      });
    }
  }
  const result = e.result as ModelCallResult | undefined;
  if (result && e.status === 'COMPLETED') {
    const text = byAttempt.get(e.records.at(-1)?.modelCallId ?? '') ?? '';
    if (text !== result.output.text) {
      out.push({
        invariant: 'stream',
        message: `delivered ${JSON.stringify(text)}, returned ${JSON.stringify(result.output.text)}`,
      });
    }
  }
}

/** What the delivery oracle of a call under `onCut: 'continue'` is given (see `delivery.ts`). */
function deliveryFacts(e: Evidence): Parameters<typeof checkDelivery>[0] {
  const requests = new Map<string, SentRequest>();
  const prefix = `${e.workflowId}/`;
  for (const q of e.requests as (RecordedRequest & SentRequest)[]) {
    const id = q.headers['x-request-id'] ?? '';
    if (!id.startsWith(prefix)) continue;
    requests.set(id.slice(prefix.length), {
      ...(q.continuation ? { continuation: q.continuation } : {}),
      ...(q.answer !== undefined ? { answer: q.answer } : {}),
    });
  }
  const result = e.result as ModelCallResult | undefined;
  const details = e.failure?.details?.[0] as ModelCallFailedDetails | undefined;
  return {
    records: e.records,
    items: e.streamItems ?? [],
    ...(result && e.status === 'COMPLETED' ? { resultText: result.output.text } : {}),
    ...(result?.output.content && e.status === 'COMPLETED'
      ? {
          resultContentText: result.output.content
            .flatMap((part) => (part.type === 'text' ? [part.text] : []))
            .join(''),
        }
      : {}),
    ...(details && e.status === 'FAILED'
      ? { stopped: details.partialText !== undefined ? { partialText: details.partialText } : {} }
      : {}),
    requests,
    wholeAnswers: [ANSWER, CONTINUE_ANSWER, CONTINUE_WIDE, CLEAN_CUT_TEXT],
  };
}

/** JSON with sorted keys, for comparing records whatever their key order. */
function canon(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
