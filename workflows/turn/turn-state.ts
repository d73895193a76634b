import { setHandler } from '@temporalio/workflow';
import { MAX_PLAN_MS, parseIsoInstant } from '../../policy/index.js';
import type { ResolvedPlan, Spent, StopReason } from '../../policy/index.js';
import type { Usage } from '../../common/attempt.js';
import type { WireMessage } from '../../common/request.js';
import { textOfMessage } from '../../common/assistant-message.js';
import type { TurnToolDefinition } from '../../common/tools.js';
import { attemptsQuery, turnStatusQuery, extendDeadlineUpdate } from '../../common/queries.js';
import type { ExtendDeadlineRequest } from '../../common/queries.js';
import { billedTotals } from '../../common/ledger/billed.js';
import { iso } from '../../common/iso.js';
import type { AttemptRecord, CallStatus, LastDecision } from '../../common/call.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { SpentBefore } from '../call/budget-watch.js';
import type { AgentTurnPartial, TurnCarry, TurnStatus, TurnStep } from '../../common/turn.js';

/**
 * Everything a turn knows while it runs: the conversation, the steps with their attempt records, the plan its
 * calls share (deadline, reserve) and the shared retry-after times. It answers the `status` and `attempts`
 * queries and the `extendDeadline` update, across the chain of runs (earlier runs' steps are carried).
 */
export class TurnState {
  readonly messages: WireMessage[];
  readonly steps: TurnStep[];
  readonly notBefore: SharedNotBefore;
  /** This run's number in the chain (1 + the runs before it). */
  readonly runs: number;
  phase: TurnStatus['phase'] = 'starting';
  call?: CallStatus;
  stopReason?: StopReason;
  /** A turn with a budget: what its calls spent so far (each call's `spent` includes the calls before it). */
  spent: Spent | undefined;

  constructor(
    readonly plan: ResolvedPlan,
    readonly maxSteps: number,
    readonly inputCount: number,
    messages: WireMessage[],
    carried: Partial<TurnCarry>,
    public tools: TurnToolDefinition[],
  ) {
    this.messages = messages;
    this.steps = carried.steps ?? [];
    this.notBefore = carried.notBefore ?? {};
    this.runs = (carried.runs ?? 0) + 1;
    this.spent = carried.spent;
  }

  /** What the turn's next call counts as spent before it, under the turn's budget. */
  spentBefore(): SpentBefore | undefined {
    if (this.spent === undefined) return undefined;
    let largestOutput = 0;
    for (const r of this.attempts()) largestOutput = Math.max(largestOutput, r.usage?.outputTokens ?? 0);
    return { spent: this.spent, largestOutput };
  }

  /** Every attempt of every step, across the chain of runs. */
  attempts(): AttemptRecord[] {
    return this.steps.flatMap((s) => s.attempts);
  }

  status(): TurnStatus {
    const step = this.steps.at(-1);
    const call = this.call;
    const waiting = this.phase === 'model' && call?.state === 'waiting';
    const tools = step && this.phase === 'tools' ? step.tools : undefined;
    return {
      step: step?.step ?? 0,
      maxSteps: this.maxSteps,
      phase: waiting ? 'waiting' : this.phase,
      ...(call && this.phase !== 'stopped'
        ? { callId: call.callId, attempt: call.attempt, backend: call.backend, model: call.model }
        : {}),
      ...(waiting && call?.waitingUntil ? { waitingUntil: call.waitingUntil } : {}),
      ...(tools
        ? { tools: tools.map((t) => ({ name: t.name, activityId: t.activityId, outcome: t.outcome })) }
        : {}),
      ...(this.plan.deadlineMs !== undefined ? { deadline: iso(this.plan.deadlineMs) } : {}),
      ...(this.stopReason ? { stopReason: this.stopReason } : {}),
      runs: this.runs,
      attempts: this.attempts().length,
    };
  }

  /** Answers `status`, `attempts` and `extendDeadline`. */
  register(): void {
    setHandler(turnStatusQuery, () => this.status());
    setHandler(attemptsQuery, () => this.attempts().map((r) => ({ ...r })));
    setHandler(
      extendDeadlineUpdate,
      (request) => {
        this.plan.deadlineMs = this.extendedDeadline(request);
        return { deadline: iso(this.plan.deadlineMs) };
      },
      { validator: (request) => void this.extendedDeadline(request) },
    );
  }

  /** The deadline a request asks for; throws when it is not later than the current one or the turn has ended. */
  private extendedDeadline(request: ExtendDeadlineRequest): number {
    const current = this.plan.deadlineMs;
    if (this.stopReason !== undefined) throw new Error(`the turn has already stopped (${this.stopReason})`);
    if (current === undefined) throw new Error('the turn has no deadline to extend');
    let next: number | undefined;
    if (
      typeof request === 'object' &&
      request !== null &&
      'deadline' in request &&
      typeof request.deadline === 'string'
    ) {
      next = parseIsoInstant(request.deadline);
      if (next === undefined)
        throw new Error('`deadline` must be an ISO instant with a zone, e.g. 2026-03-01T12:00:00Z');
    } else if (
      typeof request === 'object' &&
      request !== null &&
      'byMs' in request &&
      typeof request.byMs === 'number'
    ) {
      if (!Number.isFinite(request.byMs) || request.byMs <= 0)
        throw new Error('`byMs` must be a positive number of ms');
      next = current + request.byMs;
    } else {
      throw new Error('pass `{ deadline: ISO }` or `{ byMs: N }`');
    }
    if (next - Date.now() > MAX_PLAN_MS) {
      // Past what Temporal's durations and JavaScript's dates hold (as for the plan's own times).
      throw new Error(
        `the deadline can be at most ${MAX_PLAN_MS} ms (100 years) from now: pass a smaller \`byMs\` or an earlier \`deadline\``,
      );
    }
    if (next <= current) {
      throw new Error(`the deadline can only move later: ${iso(next)} is not after ${iso(current)}`);
    }
    return next;
  }

  /** The turn's outcome so far, for its result or its failure's details. */
  partial(stopReason: StopReason, why: string, lastDecision?: LastDecision): AgentTurnPartial {
    const last = [...this.messages].reverse().find((m) => m.role === 'assistant');
    const lastText = last ? textOfMessage(last) : '';
    return {
      stopReason,
      text: lastText,
      messages: this.messages.slice(this.inputCount),
      steps: this.steps,
      usage: usageTotals(this.steps),
      billed: billedTotals(this.attempts()),
      ...(this.spent ? { spent: this.spent } : {}),
      ...(this.plan.deadlineMs !== undefined ? { deadline: iso(this.plan.deadlineMs) } : {}),
      why,
      ...(lastDecision ? { lastDecision } : {}),
      runs: this.runs,
    };
  }

  /** What the next run needs. */
  carry(callCount: number): TurnCarry {
    return {
      plan: this.plan,
      messages: this.messages,
      inputCount: this.inputCount,
      steps: this.steps,
      notBefore: this.notBefore,
      callCount,
      tools: this.tools,
      runs: this.runs,
      ...(this.spent ? { spent: this.spent } : {}),
    };
  }
}

function usageTotals(steps: readonly TurnStep[]): Usage {
  const out: Usage = {};
  const keys = [
    'inputTokens',
    'outputTokens',
    'totalTokens',
    'cachedInputTokens',
    'reasoningTokens',
  ] as const;
  for (const s of steps) {
    for (const k of keys) {
      const v = s.usage?.[k];
      if (v !== undefined) out[k] = (out[k] ?? 0) + v;
    }
  }
  return out;
}
