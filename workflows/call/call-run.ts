import { CancellationScope, CancelledFailure, sleep, workflowInfo } from '@temporalio/workflow';
import {
  afterAttempt,
  attemptTimeoutMs,
  spendUntilMs,
  beforeAttempt,
  cancelledStop,
  failedAttempt,
} from '../../policy/index.js';
import type {
  AttemptDecision,
  AttemptEnd,
  Decision,
  ResolvedPlan,
  StopDecision,
} from '../../policy/index.js';
import type { AttemptCause, ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import type { AttemptRecord, CallStatus, ModelCallInput, ModelCallResult } from '../../common/call.js';
import { outcomeOf } from './attempt-outcome.js';
import { modelRequest } from './model-request.js';
import { heldOffLimitQueue } from './cooling-check.js';
import type { AttemptOutcome } from './attempt-outcome.js';
import { actionOf, callFailed, resultOf } from './call-result.js';
import { noteSearchAttributesReady } from './call-stop.js';
import type { CallStream } from './call-stream.js';
import type { HistoryWatch } from './history-watch.js';
import type { BudgetWatch } from './budget-watch.js';
import { iso, succeed, waitSummary } from './call-summary.js';
import { shareNotBefore } from '../../policy/shared-not-before.js';
import type { CheckedOutput } from './call-output.js';
import { Corrections } from './call-repair.js';
import { jsonBytes } from '../turn/turn-input.js';
import { attemptQueueOf } from '../../common/limits.js';
import type { LimitsByKey } from '../../common/limits.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';

/** How an attempt's activity ended, before anything is recorded or decided. */
export type Ended =
  | { kind: 'answered'; result: ModelRequestResult }
  | { kind: 'raised'; error: unknown; outcome: AttemptOutcome };

/** What a call is made of once its input is checked. */
export interface CallSetup {
  callId: string;
  input: ModelCallInput;
  plan: ResolvedPlan;
  backends: string[];
  messages: ModelRequestInput['messages'];
  /** The tools in our list shape (the AI SDK's record shape converted). */
  tools: ModelRequestInput['tools'];
  stream: CallStream;
  status: CallStatus;
  records: AttemptRecord[];
  shared: SharedNotBefore | undefined;
  /** The run's history, for the `history-limit` stop. */
  history: HistoryWatch;
  /** The call's structured output, checked (`output.schema`, `output.repairs`). */
  output: CheckedOutput | undefined;
  /** The call's budget, for the `budget` stop; absent for a call without one. */
  budget?: BudgetWatch | undefined;
  /** The worker's limits (its `modelRetryConfig` answer): a rate-limited backend's attempts run on its queue. */
  limits: LimitsByKey | undefined;
}

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

  constructor(private readonly call: CallSetup) {}

  /** Waits the decision's time (a durable timer), then checks what may stand between it and the attempt. */
  async wait(decision: AttemptDecision): Promise<Decision> {
    const { status, records, plan } = this.call;
    if (decision.waitMs > 0) {
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
    }
    return beforeAttempt(plan, decision, {
      cancelRequested: cancelRequested(),
      nowMs: Date.now(),
      waited: decision.waitMs > 0,
    });
  }

  /** Opens the record of the attempt `decision` starts, and publishes that it starts. */
  open(decision: AttemptDecision): AttemptRecord {
    const { callId, backends, records, stream, status } = this.call;
    const model = backends[decision.backend] as string;
    const attempt = decision.state.attempts;
    const record: AttemptRecord = {
      modelCallId: `${callId}.${attempt}`,
      callId,
      attempt,
      backend: decision.backend,
      model,
      startedAt: iso(Date.now()),
      outcome: 'running',
    };
    records.push(record);
    stream.attemptStarted(record);
    Object.assign(status, { state: 'attempting', attempt, backend: decision.backend, model });
    return record;
  }

  /** Runs the attempt of `record` (one activity, no Temporal retry). */
  async attempt(record: AttemptRecord): Promise<Ended> {
    const { input, plan, messages, tools, stream, output } = this.call;
    const scheduledAt = Date.parse(record.startedAt);
    const spendUntil = spendUntilMs(plan);
    const request: ModelRequestInput = {
      workflowId: workflowInfo().workflowId,
      callId: record.callId,
      attempt: record.attempt,
      modelCallId: record.modelCallId,
      backend: record.backend,
      model: record.model,
      messages: this.corrections.messages(messages),
      ...(tools ? { tools } : {}),
      ...(input.settings ? { settings: input.settings } : {}),
      timeoutMs: attemptTimeoutMs(plan, scheduledAt),
      ...(spendUntil === undefined ? {} : { spendUntil }),
      ...(this.after ? { after: this.after } : {}),
      ...(stream.config ? { stream: stream.config } : {}),
      ...(output ? { output: { schema: output.schema } } : {}),
      ...(input.budget?.maxCostUsd !== undefined ? { costBudget: true as const } : {}),
    };
    try {
      const limited = attemptQueueOf(workflowInfo().taskQueue, record.model, this.call.limits);
      // A cooling backend's attempt sends nothing: it fails at once on the call's queue, taking no rate token.
      const held = limited !== undefined && (await heldOffLimitQueue(record.model));
      const [input, taskQueue] = held ? [{ ...request, held: true as const }, undefined] : [request, limited];
      return { kind: 'answered', result: await modelRequest(plan, input, scheduledAt, taskQueue) };
    } catch (error) {
      return { kind: 'raised', error, outcome: outcomeOf(error, cancelRequested()) };
    }
  }

  /** Writes how the attempt ended into its record (as the history reader will), and says it to the policy. */
  record(record: AttemptRecord, ended: Ended): AttemptEnd {
    const delivered = this.call.stream.delivered(record);
    if (ended.kind === 'answered') {
      noteSearchAttributesReady(ended.result.searchAttributesReady);
      succeed(record, ended.result);
      if (delivered) record.streamedDeltas = delivered.deltas;
      this.result = ended.result;
      return { kind: 'answered' };
    }
    const { outcome } = ended;
    if (outcome.startedAt) record.startedAt = outcome.startedAt;
    record.endedAt = outcome.endedAt ?? iso(Date.now());
    if (outcome.kind === 'cancelled') {
      record.outcome = 'cancelled';
      if (delivered) record.streamedDeltas = delivered.deltas;
      this.cancellation = ended.error;
      return { kind: 'cancelled' };
    }
    noteSearchAttributesReady(outcome.searchAttributesReady);
    const { failure, record: recorded } = failedAttempt({
      ...outcome.facts,
      ...(delivered ? { deltasDelivered: delivered.deltas } : {}),
    });
    record.outcome = 'failed';
    record.failure = recorded;
    if (outcome.usage) record.usage = outcome.usage;
    if (outcome.finishReason !== undefined) record.finishReason = outcome.finishReason;
    if (delivered) record.streamedDeltas = delivered.deltas;
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
    if (record.failure && decision.action !== undefined) record.failure.action = decision.action;
    if (decision.kind === 'attempt') {
      record.retryInMs = decision.waitMs;
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
      return { ...resultOf(callId, last, this.result, records), ...(spent ? { spent } : {}) };
    }
    if (decision.reason === 'cancelled') {
      throw this.cancellation ?? new CancelledFailure('the call was cancelled');
    }
    const lastDecision = { reason: decision.reason, why: decision.why, ...actionOf(decision) };
    throw callFailed(callId, records, lastDecision, this.partialText, spent);
  }
}

/** Whether the calling scope is cancelled (the host cancelled the workflow, or a user cancelled their scope). */
function cancelRequested(): boolean {
  return CancellationScope.current().consideredCancelled;
}
