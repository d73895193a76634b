import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  continueAsNew,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { fitsDeadline, stopBeforeStep, turnNearHistoryLimit } from '../../policy/index.js';
import type { StopReason } from '../../policy/index.js';
import type { ToolCall } from '../../common/attempt.js';
import type { WireTool } from '../../common/request.js';
import { assistantMessageOf } from '../../common/assistant-message.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails, ModelCallResult } from '../../common/call.js';
import { TURN_TOO_LARGE, TURN_TOOL_FATAL } from '../../common/turn.js';
import type { AgentTurnInput, TurnEnd, TurnStep } from '../../common/turn.js';
import { callCount } from '../call/call-log.js';
import { backendsOf } from '../../common/call-input/call-input.js';
import { callSteps } from '../call/model-call.js';
import type { CallSteps } from '../call/model-call.js';
import type { SpentBefore } from '../call/budget-watch.js';
import { handOverStream } from '../stream.js';
import { jsonBytes, tooLarge } from '../../common/turn-input.js';
import { ConversationBytes, objectBytes } from './conversation-bytes.js';
import { turnFailure } from './turn-size.js';
import type { TurnState } from './turn-state.js';
import { startToolCalls, toolCallsEnded } from './turn-tools.js';
import type { OneEnd, StartedToolCalls } from './turn-tools.js';

/** How a turn stops: with a result (`end`), or by throwing `error` (a failure, or the cancellation rethrown). */
export type TurnStop =
  | { kind: 'end'; reason: TurnEnd; why: string; call?: ModelCallFailedDetails }
  | { kind: 'throw'; reason: StopReason; error: unknown };

/** What `before` says when the turn continues as new before its next step (`continueAsNew` does it). */
export const CONTINUE_AS_NEW = 'continue-as-new';

/**
 * One agent turn's steps (see `agentTurnWorkflow`): the checks before a step (max steps, continue-as-new, the
 * deadline), its model call, its tool calls. Each part says how the turn stops, or `undefined` to go on. Only
 * the model call and the tool calls wait, and the turn's loop awaits them itself: every promise a workflow
 * creates costs a stack trace in Temporal's sandbox, so the checks and the bookkeeping around the waits are
 * plain functions (docs/decisions/turns/012-step-loop-plain-functions.md).
 */
export class TurnSteps {
  private readonly backends: string[];
  private readonly modelTools: WireTool[];
  /** The tool calls the latest answer asked for. */
  private toolCalls: ToolCall[] = [];
  /** The conversation's bytes, counted as it grows (each message once). */
  private readonly conversation = new ConversationBytes();
  /** The bytes of `modelTools`, the same at every step. */
  private readonly toolsBytes: number;

  constructor(
    private readonly input: AgentTurnInput,
    private readonly turn: TurnState,
  ) {
    this.backends = backendsOf({ model: input.model });
    this.modelTools = turn.tools.map(({ name, description, inputSchema }) => ({
      type: 'function' as const,
      name,
      ...(description !== undefined ? { description } : {}),
      inputSchema,
    }));
    this.toolsBytes = jsonBytes(this.modelTools);
  }

  /**
   * Before a step: the deadline rule and `maxSteps`, in the contract's order of the stop reasons (`deadline`
   * first), then continue-as-new when Temporal suggests it or the next model call could take the run near the
   * plan's `historyLimit` (`CONTINUE_AS_NEW`: the loop calls `continueAsNew`; a turn that stops anyway does
   * not), then the conversation's size.
   */
  before(): TurnStop | typeof CONTINUE_AS_NEW | undefined {
    const { turn } = this;
    const done = turn.steps.at(-1)?.step ?? 0;
    const stop = stopBeforeStep({
      pastDeadline: !fitsDeadline(turn.plan, Date.now(), 0),
      stepsUsed: done >= turn.maxSteps,
    });
    if (stop === 'deadline')
      return end(
        'deadline',
        'the deadline leaves less than minAttemptMs + reserveMs for the next model call',
      );
    if (stop === 'max-steps') return end('max-steps', `${turn.maxSteps} steps (maxSteps) were made`);
    // The conversation's size (`{ messages, tools }` as JSON), once per step: the history check and the size
    // limit both read it. Only the messages added since the last step are serialized.
    let bytes: number | undefined;
    const conversationBytes = () =>
      (bytes ??= objectBytes([
        ['messages', this.conversation.of(turn.messages)],
        ['tools', this.toolsBytes],
      ]));
    if (done > 0 && (workflowInfo().continueAsNewSuggested || this.nearHistoryLimit(conversationBytes())))
      return CONTINUE_AS_NEW;
    refuseIfTooLarge('the conversation', conversationBytes());
    return undefined;
  }

  /** Continues as new: hands the stream over and carries the turn to its next run (never returns). */
  async continueAsNew(): Promise<never> {
    const { turn, input } = this;
    const stream = await handOverStream();
    const next: AgentTurnInput = {
      ...input,
      carried: { ...turn.carry(callCount()), ...(stream ? { stream } : {}) },
    };
    refuseIfTooLarge('what the turn carries to its next run', jsonBytes(next));
    return continueAsNew<(input: AgentTurnInput) => Promise<unknown>>(next);
  }

  private nearHistoryLimit(stepBytes: number): boolean {
    const info = workflowInfo();
    return turnNearHistoryLimit(
      this.turn.plan,
      { bytes: info.historySize, events: info.historyLength },
      stepBytes,
    );
  }

  /**
   * The step's model call (a `callModel` sharing the turn's plan and retry-after times), as steps for the turn's
   * loop to drive (see `CallSteps`).
   */
  model(): CallSteps {
    const { turn, input, modelTools } = this;
    const step: TurnStep = { step: (turn.steps.at(-1)?.step ?? 0) + 1, callId: '', attempts: [], tools: [] };
    turn.steps.push(step);
    turn.phase = 'model';
    return callSteps(
      {
        model: this.backends,
        messages: turn.messages,
        ...(modelTools.length > 0 ? { tools: modelTools } : {}),
        ...(input.settings ? { settings: input.settings } : {}),
        ...(input.providerOptions ? { providerOptions: input.providerOptions } : {}),
        ...(input.headers ? { headers: input.headers } : {}),
        ...(input.stream !== undefined ? { stream: input.stream } : {}),
        ...(input.budget !== undefined ? { budget: input.budget } : {}),
        ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
      },
      {
        plan: turn.plan,
        notBefore: turn.notBefore,
        ...spentBeforeOf(turn),
        messagesBytes: this.conversation.of(turn.messages),
        onStart: (call) => {
          step.callId = call.callId;
          step.attempts = call.records;
          turn.call = call.status;
        },
      },
    );
  }

  /** The step's model call answered: notes the answer; the turn stops when it asked for no tool. */
  answered(answer: ModelCallResult): TurnStop | undefined {
    const { turn } = this;
    const step = turn.steps.at(-1) as TurnStep;
    if (answer.spent) turn.spent = answer.spent;
    const { text, toolCalls, finishReason } = answer.output;
    Object.assign(step, {
      model: answer.model,
      text,
      finishReason,
      ...(answer.usage ? { usage: answer.usage } : {}),
    });
    turn.messages.push(assistantMessageOf(answer.output));
    this.toolCalls = toolCalls;
    if (toolCalls.length === 0) return end('succeeded', `step ${step.step} answered without tool calls`);
    return undefined;
  }

  /** The step's model call threw: how the turn stops (an error that is no call's stop is rethrown). */
  modelFailed(error: unknown): TurnStop {
    const { turn } = this;
    const step = turn.steps.at(-1) as TurnStep;
    if (isCancellation(error)) return { kind: 'throw', reason: 'cancelled', error };
    const details = callFailedDetails(error);
    if (!details) throw error;
    step.stopReason = details.stopReason;
    if (details.spent) turn.spent = details.spent;
    if (details.stopReason === 'deadline' || details.stopReason === 'budget')
      return end(details.stopReason, `model call ${details.callId}: ${details.lastDecision.why}`, details);
    const failure = turnCallFailed(turn, error as ApplicationFailure, details);
    return { kind: 'throw', reason: details.stopReason, error: failure };
  }

  /** Starts the tool calls the step's answer asked for, in parallel (`toolsEnded` or `toolsFailed` follows). */
  tools(): StartedToolCalls {
    const { turn } = this;
    const step = turn.steps.at(-1) as TurnStep;
    turn.phase = 'tools';
    return startToolCalls(step.callId, this.toolCalls, turn.tools, turn.plan, step.tools, this.input.tenant);
  }

  /** The step's tool calls settled: the turn stops on a cancel, the deadline or a fatal tool, else goes on. */
  toolsEnded(
    started: StartedToolCalls['started'],
    settled: readonly PromiseSettledResult<OneEnd>[],
  ): TurnStop | undefined {
    const { turn } = this;
    const step = turn.steps.at(-1) as TurnStep;
    let tools: ReturnType<typeof toolCallsEnded>;
    try {
      tools = toolCallsEnded(started, settled);
    } catch (error) {
      return this.toolsFailed(error);
    }
    // Cancellation first: tool calls that ended on their own after the cancel do not lead to another step.
    if (CancellationScope.current().consideredCancelled)
      return { kind: 'throw', reason: 'cancelled', error: new CancelledFailure('the turn was cancelled') };
    turn.messages.push(...tools.messages);
    if (tools.end.kind === 'deadline') return end('deadline', tools.end.why);
    if (tools.end.kind === 'fatal') {
      const error = turnFailure(
        TURN_TOOL_FATAL,
        `agent turn stopped (non-retryable) at step ${step.step}: ${tools.end.why}`,
        turn.partial('non-retryable', tools.end.why),
      );
      return { kind: 'throw', reason: 'non-retryable', error };
    }
    return undefined;
  }

  /** Starting or ending the tool calls threw: a cancellation stops the turn; anything else is rethrown. */
  toolsFailed(error: unknown): TurnStop {
    if (isCancellation(error)) return { kind: 'throw', reason: 'cancelled', error };
    throw error;
  }
}

/** The turn's first call under a budget counts from nothing spent; later ones from what the turn spent. */
function spentBeforeOf(turn: TurnState): { spentBefore?: SpentBefore } {
  const before = turn.spentBefore();
  return before ? { spentBefore: before } : {};
}

function end(reason: TurnEnd, why: string, call?: ModelCallFailedDetails): TurnStop {
  return { kind: 'end', reason, why, ...(call ? { call } : {}) };
}

function callFailedDetails(error: unknown): ModelCallFailedDetails | undefined {
  if (!(error instanceof ApplicationFailure) || error.type !== MODEL_CALL_FAILED) return undefined;
  return error.details?.[0] as ModelCallFailedDetails | undefined;
}

/**
 * A model call that stopped without an answer (not at the deadline) ends the turn with the call's own failure
 * type, `ModelCallFailed`, so history readers find its stop reason and last decision where they look for them;
 * its details add what the turn had done so far (`turn`), bounded like the turn's result (see `turnFailure`).
 */
function turnCallFailed(
  turn: TurnState,
  failure: ApplicationFailure,
  details: ModelCallFailedDetails,
): ApplicationFailure {
  const step = turn.steps.at(-1)?.step ?? 0;
  return turnFailure(
    MODEL_CALL_FAILED,
    `agent turn stopped (${details.stopReason}) at step ${step}: ${failure.message}`,
    turn.partial(details.stopReason, details.lastDecision.why, details.lastDecision),
    details,
  );
}

function refuseIfTooLarge(what: string, bytes: number): void {
  const why = tooLarge(what, bytes);
  if (why !== undefined) {
    throw ApplicationFailure.create({ type: TURN_TOO_LARGE, nonRetryable: true, message: why });
  }
}
