import { CancellationScope, CancelledFailure, sleep } from '@temporalio/workflow';
import { afterAttempt, beforeAttempt, cancelledStop } from '../../policy/index.js';
import type { AttemptDecision, AttemptEnd, Decision, StopDecision } from '../../policy/index.js';
import type { AttemptCause, ModelRequestResult } from '../../common/attempt.js';
import type { AttemptRecord, ModelCallResult } from '../../common/call.js';
import { heartbeatTimeoutMs } from '../../common/heartbeat.js';
import { tenantPriority } from '../../common/fairness.js';
import { outcomeOf } from './attempt-outcome.js';
import { attemptRequest } from './attempt-request.js';
import { cancelledEvent, failedEvent, openedEvent } from './attempt-record.js';
import { modelRequest } from './model-request.js';
import { routeOf } from './cooling-check.js';
import type { AttemptRoute } from './cooling-check.js';
import { actionOf, callFailed, resultOf } from './call-result.js';
import { noteSearchAttributesReady } from './call-stop.js';
import type { CallSetup, Ended } from './call-setup.js';
import { checkSummary, waitSummary } from '../../common/ledger/summary.js';
import { iso } from '../../common/iso.js';
import { Ledger } from '../../common/ledger/ledger.js';
import { shareNotBefore } from '../../policy/shared-not-before.js';
import { Corrections } from './call-repair.js';
import { jsonBytes } from '../../common/turn-input.js';
import { DeliveredText } from './call-continuation.js';

export type { CallSetup, Ended } from './call-setup.js';

/** What a continuation's input carries besides the delivered text (its fields, the instruction), estimated high. */
const CONTINUATION_OVERHEAD_BYTES = 1024;

/**
 * One call's steps (see `callModel`): wait, attempt, record, decide, stop. Each step reads and writes the call's
 * status and records; every rule it applies is a policy function (`beforeAttempt`, `afterAttempt`,
 * `failedAttempt`), the ones the history reader applies too.
 */
export class CallRun {
  /** The decision that led to the next attempt, carried in its input (the history reader reads it there). */
  private after: AttemptCause | undefined;
  /** The answer of the attempt that succeeded. */
  private result: ModelRequestResult | undefined;
  /** The cancellation to rethrow unchanged, when one was caught. */
  private cancellation: unknown;
  /** The text a stream-interrupted attempt delivered. */
  private partialText: string | undefined;
  /** The repairs' corrections to the conversation. */
  private readonly corrections = new Corrections();
  /** Where the next attempt runs, decided before its record opens (see `routeOf`). */
  private route: AttemptRoute = {};
  /** Under `onCut: 'continue'`: every character the call's cut attempts delivered, and the attempt cut last. */
  private readonly cut = new DeliveredText();
  /** The call's records, folded from what happens to its attempts (as the history reader folds a history). */
  private readonly ledger: Ledger;

  constructor(private readonly call: CallSetup) {
    this.ledger = new Ledger(call.records);
  }

  /**
   * Waits the decision's time (a durable timer), then checks what may stand between it and the attempt: a stop
   * rule, and where the attempt runs (a cooling check may run first: a marker, during which a cancel may come).
   * The next decision at once when there is nothing to wait for (no timer, no check): a promise only where
   * something is awaited, since Temporal's sandbox takes a stack trace of each one. Measured with
   * scripts/profile/replay-instructions.ts: with `wait`, `routeOf`, the call's loop and the stop's upserts as plain
   * async functions, a replayed call counted 6.4 % more instructions and a replayed agent turn 32 % more.
   */
  wait(decision: AttemptDecision): Decision | Promise<Decision> {
    if (decision.waitMs > 0) return this.waited(decision);
    return this.checked(decision, false);
  }

  /** The durable timer of `wait`, then its checks. */
  private async waited(decision: AttemptDecision): Promise<Decision> {
    const { status, records } = this.call;
    status.state = 'waiting';
    status.waitingUntil = iso(Date.now() + decision.waitMs);
    const summary =
      records.length > 0
        ? waitSummary(decision.waitMs, records.at(-1))
        : `wait ${decision.waitMs} ms: every backend is inside a retry-after`;
    try {
      await sleep(decision.waitMs, { summary });
    } catch (error) {
      this.cancellation = error;
      return cancelledStop(decision.state);
    } finally {
      delete status.waitingUntil;
    }
    const next = this.checked(decision, true);
    return next instanceof Promise ? await next : next;
  }

  /** The stop rules before an attempt (after its wait, if any), then where it runs. */
  private checked(decision: AttemptDecision, waited: boolean): Decision | Promise<Decision> {
    const next = beforeAttempt(this.call.plan, decision, {
      cancelRequested: cancelRequested(),
      nowMs: Date.now(),
      waited,
    });
    return next.kind === 'attempt' ? this.routed(next) : next;
  }

  /**
   * Decides where `decision`'s attempt runs before its record opens, so that the record's start is the time its
   * activity is scheduled (as the history reader rebuilds it) and a cancel during the check opens no record.
   */
  private routed(decision: AttemptDecision): Decision | Promise<Decision> {
    const askedAt = Date.now();
    const model = this.call.backends[decision.backend] as string;
    const summary = checkSummary(model, decision.waitMs, this.call.records.at(-1));
    const route = routeOf(model, this.call.worker, summary);
    if (!(route instanceof Promise)) {
      this.route = route;
      return this.afterRoute(decision, askedAt);
    }
    return route.then((checked) => {
      this.route = checked;
      return this.afterRoute(decision, askedAt);
    });
  }

  /**
   * The check's marker may have moved workflow time (a slow local activity): the stop rules again, as after a
   * wait, so a call it left without time for an attempt stops `deadline` instead of sending one that cannot.
   */
  private afterRoute(decision: AttemptDecision, askedAt: number): Decision {
    const nowMs = Date.now();
    return beforeAttempt(this.call.plan, decision, {
      cancelRequested: cancelRequested(),
      nowMs,
      waited: nowMs > askedAt,
    });
  }

  /** Opens the record of the attempt `decision` starts, and publishes that it starts. */
  open(decision: AttemptDecision): AttemptRecord {
    const { callId, backends, stream, status } = this.call;
    const model = backends[decision.backend] as string;
    const continues = this.cut.continuation()?.continues;
    const record = this.ledger.open(openedEvent(callId, model, decision, continues));
    stream.attemptStarted(record);
    Object.assign(status, { state: 'attempting', attempt: record.attempt, backend: decision.backend, model });
    return record;
  }

  /**
   * Starts the attempt of `record` (one activity, no Temporal retry) where `wait` routed it, and returns the
   * activity's own promise: the caller awaits it and hands what it threw to `raised` (no async wrapper, whose
   * promise Temporal's sandbox would take a stack trace of). Scheduling it is inside the attempt: what
   * that throws is what the promise rejects with.
   */
  attempt(record: AttemptRecord): Promise<ModelRequestResult> {
    const { taskQueue, held } = this.route;
    const messages = this.corrections.messages(this.call.request.prompt);
    const continuation = this.cut.continuation();
    const request = attemptRequest(this.call, record, { messages, after: this.after, held, continuation });
    try {
      const scheduledAt = Date.parse(record.startedAt);
      const { worker, input } = this.call;
      const heartbeatTimeout = heartbeatTimeoutMs(worker?.heartbeatMs);
      const priority = tenantPriority(input.tenant, worker?.tenants);
      return modelRequest(this.call.plan, request, scheduledAt, taskQueue, heartbeatTimeout, priority);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** How an attempt ended that threw `error` (a failure, a timeout, a cancellation). */
  raised(error: unknown): Ended {
    return { kind: 'raised', error, outcome: outcomeOf(error, cancelRequested()) };
  }

  /** Writes how the attempt ended into its record (as the history reader will), and says it to the policy. */
  record(record: AttemptRecord, ended: Ended): AttemptEnd {
    const { modelCallId } = record;
    const delivered = this.call.stream.delivered(record);
    const continueOnCut = this.call.stream.config?.onCut === 'continue';
    if (delivered) {
      const chars = delivered.text.length;
      this.ledger.note({ kind: 'delivered', modelCallId, deltas: delivered.deltas, chars, continueOnCut });
    }
    // The next attempts carry the delivered text (and an instruction): the history limit counts it.
    if (continueOnCut && delivered && ended.kind !== 'answered' && delivered.text !== '') {
      this.cut.add(record, delivered.text);
      this.call.history.growInput(jsonBytes(delivered.text) + CONTINUATION_OVERHEAD_BYTES);
      this.call.budget?.continueWith(jsonBytes(delivered.text) + CONTINUATION_OVERHEAD_BYTES);
    }
    if (ended.kind === 'answered') {
      noteSearchAttributesReady(ended.result.searchAttributesReady);
      this.ledger.note({ kind: 'answered', modelCallId, result: ended.result });
      this.result = ended.result;
      return { kind: 'answered' };
    }
    const { outcome } = ended;
    if (outcome.kind === 'cancelled') {
      this.ledger.note(cancelledEvent(modelCallId, outcome));
      this.cancellation = ended.error;
      return { kind: 'cancelled' };
    }
    noteSearchAttributesReady(outcome.searchAttributesReady);
    const failure = this.ledger.fail(failedEvent(modelCallId, outcome));
    // A repair would send the correction too: the history limit counts it before the decision.
    const correction = this.corrections.note(outcome.mismatch);
    if (correction.length > 0) this.call.history.growInput(jsonBytes(correction));
    this.call.budget?.afterAttempt(
      record,
      outcome.mismatch && {
        answerBytes: jsonBytes(outcome.mismatch.answer),
        bytes: jsonBytes(correction),
      },
    );
    if (failure.class === 'StreamInterrupted') this.partialText = delivered?.text;
    return { kind: 'failed', failure, deadlineReached: outcome.deadlineReached };
  }

  /** Decides what follows the attempt of `record` (the policy's order of the stop reasons), and notes it. */
  decide(state: Decision['state'], record: AttemptRecord, end: AttemptEnd): Decision {
    const { plan, backends, shared, history, output, budget } = this.call;
    const context = {
      cancelRequested: cancelRequested(),
      nowMs: Date.now(),
      random: Math.random,
      run: {
        ...history.afterAttempt(),
        ...(output ? { repairs: output.repairs } : {}),
        ...(budget ? { budget: budget.outlook() } : {}),
      },
    };
    const decision = afterAttempt(plan, state, end, context);
    this.corrections.follow(decision);
    if (!this.corrections.carried) budget?.dropCorrections();
    if (end.kind !== 'failed' || (decision.kind === 'stop' && decision.reason === 'cancelled'))
      return decision;
    if (shared) shareNotBefore(backends, decision.state, shared);
    const retryInMs = decision.kind === 'attempt' ? decision.waitMs : undefined;
    this.ledger.note({
      kind: 'decided',
      modelCallId: record.modelCallId,
      ...(decision.action !== undefined ? { action: decision.action } : {}),
      ...(retryInMs !== undefined ? { retryInMs } : {}),
    });
    if (decision.kind === 'attempt') {
      this.after = { action: decision.action ?? 'retry-same', retryInMs: decision.waitMs };
    }
    return decision;
  }

  /**
   * The one way a call ends: its status and stream say why, then it returns the answer (`succeeded`), rethrows
   * the cancellation unchanged (`cancelled`; a new `CancelledFailure` when it was noticed between steps), or
   * throws `ModelCallFailed`.
   */
  stop(decision: StopDecision): ModelCallResult {
    const { callId, records, status, stream, budget } = this.call;
    const spent = budget?.spent();
    status.state = 'stopped';
    status.stopReason = decision.reason;
    const last = records.at(-1);
    stream.stopped(decision.reason, last);
    if (decision.reason === 'succeeded' && this.result && last) {
      const result = this.cut.joined(resultOf(callId, last, this.result, records));
      return { ...result, ...(spent ? { spent } : {}) };
    }
    if (decision.reason === 'cancelled') {
      throw this.cancellation ?? new CancelledFailure('the call was cancelled');
    }
    const lastDecision = { reason: decision.reason, why: decision.why, ...actionOf(decision) };
    throw callFailed(callId, records, lastDecision, this.cut.text || this.partialText, spent);
  }
}

/** Whether the calling scope is cancelled (the host cancelled the workflow, or a user cancelled their scope). */
function cancelRequested(): boolean {
  return CancellationScope.current().consideredCancelled;
}
