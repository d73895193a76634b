import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { fitsDeadline } from '../../policy/index.js';
import type { ResolvedPlan, StopReason } from '../../policy/index.js';
import type { ChatMessage } from '../../common/attempt.js';
import type { ToolActivities, TurnToolDefinition } from '../../common/tools.js';
import { callCount, resumeCallCount } from '../call/call-log.js';
import { backendsOf } from '../call/call-input.js';
import { recordStop, stopReasonOf } from '../call/call-stop.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails, ModelCallResult } from '../../common/call.js';
import { callModel } from '../call/model-call.js';
import { inputFailure } from '../call/input-failure.js';
import { closeStream, handOverStream, workflowStream } from '../stream.js';
import {
  DEFAULT_MAX_STEPS,
  InvalidAgentTurnInputError,
  jsonBytes,
  tooLarge,
  turnMessages,
  turnPlan,
  validateTurnInput,
} from './turn-input.js';
import { TurnState } from './turn-state.js';
import { runToolCalls } from './turn-tools.js';
import { INVALID_AGENT_TURN_INPUT, TURN_TOO_LARGE, TURN_TOOL_FATAL } from '../../common/turn.js';
import type { AgentTurnInput, AgentTurnResult, TurnEnd, TurnStep } from '../../common/turn.js';

/**
 * One agent turn: model calls and the tool calls they ask for, in a loop, under one deadline. Each model call is
 * a `callModel` (its own attempts and waits, ids `c1`, `c2`, ...) sharing the turn's plan (deadline, reserve)
 * and the backends' retry-after times; the tool calls of one answer run in parallel as `runTool` activities
 * (ids `<callId>.tool.<n>`). Ends with a final answer (`succeeded`), after `maxSteps` model calls
 * (`max-steps`) or at the deadline with the reserve left (`deadline`), returning an `AgentTurnResult`; fails
 * with `ModelCallFailed` when a model call stops otherwise, with `AgentTurnToolFatal` on a fatal tool failure,
 * and ends CANCELED when cancelled. Continues as new when Temporal suggests it, at a step boundary. When it
 * stops (not when it continues as new) it sets the run's search attributes once, over every attempt of the chain
 * (see `recordStop`).
 */
export async function agentTurnWorkflow(input: AgentTurnInput): Promise<AgentTurnResult> {
  const turn = openTurn(input);
  turn.register();
  workflowStream(input.carried?.stream);
  let result: AgentTurnResult;
  try {
    result = await runTurn(input, turn);
  } catch (error) {
    // Continue-as-new is no stop (no stop reason); an input refused without a stop reason is not recorded either.
    const reason = turn.stopReason ?? stopReasonOf(error);
    if (reason) await recordStop(reason, turn.attempts());
    await closeStream();
    throw error;
  }
  await recordStop(result.stopReason, turn.attempts());
  await closeStream();
  return result;
}

/** The turn's loop (see `agentTurnWorkflow`), on a turn already opened. */
async function runTurn(input: AgentTurnInput, turn: TurnState): Promise<AgentTurnResult> {
  if (input.carried === undefined && input.tools && input.tools.length > 0)
    turn.tools = await describeTools(input.tools);
  const backends = backendsOf({ model: input.model });
  const modelTools = turn.tools.map(({ name, description, inputSchema }) => ({
    name,
    ...(description !== undefined ? { description } : {}),
    inputSchema,
  }));

  for (;;) {
    const done = turn.steps.at(-1)?.step ?? 0;
    if (done >= turn.maxSteps) return end(turn, 'max-steps', `${turn.maxSteps} steps (maxSteps) were made`);
    if (done > 0 && workflowInfo().continueAsNewSuggested) {
      const stream = await handOverStream();
      const next: AgentTurnInput = {
        ...input,
        carried: { ...turn.carry(callCount()), ...(stream ? { stream } : {}) },
      };
      refuseIfTooLarge('what the turn carries to its next run', next);
      await continueAsNew<typeof agentTurnWorkflow>(next);
    }
    if (!fitsDeadline(turn.plan, Date.now(), 0)) {
      return end(
        turn,
        'deadline',
        'the deadline leaves less than minAttemptMs + reserveMs for the next model call',
      );
    }
    refuseIfTooLarge('the conversation', { messages: turn.messages, tools: modelTools });

    const step: TurnStep = { step: done + 1, callId: '', attempts: [], tools: [] };
    turn.steps.push(step);
    turn.phase = 'model';
    let answer: ModelCallResult;
    try {
      answer = await callModel(
        {
          model: backends,
          messages: turn.messages,
          ...(modelTools.length > 0 ? { tools: modelTools } : {}),
          ...(input.settings ? { settings: input.settings } : {}),
          ...(input.stream !== undefined ? { stream: input.stream } : {}),
        },
        {
          plan: turn.plan,
          notBefore: turn.notBefore,
          onStart: (call) => {
            step.callId = call.callId;
            step.attempts = call.records;
            turn.call = call.status;
          },
        },
      );
    } catch (error) {
      if (isCancellation(error)) throw stopped(turn, 'cancelled', error);
      const details = callFailedDetails(error);
      if (!details) throw error;
      step.stopReason = details.stopReason;
      if (details.stopReason === 'deadline') {
        return end(turn, 'deadline', `model call ${details.callId}: ${details.lastDecision.why}`, details);
      }
      throw stopped(turn, details.stopReason, turnCallFailed(turn, error as ApplicationFailure, details));
    }
    const { text, toolCalls, finishReason } = answer.output;
    Object.assign(step, {
      model: answer.model,
      text,
      finishReason,
      ...(answer.usage ? { usage: answer.usage } : {}),
    });
    turn.messages.push({ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    if (toolCalls.length === 0)
      return end(turn, 'succeeded', `step ${step.step} answered without tool calls`);

    turn.phase = 'tools';
    let tools: Awaited<ReturnType<typeof runToolCalls>>;
    try {
      tools = await runToolCalls(step.callId, toolCalls, turn.tools, turn.plan, step.tools);
    } catch (error) {
      if (isCancellation(error)) throw stopped(turn, 'cancelled', error);
      throw error;
    }
    turn.messages.push(...tools.messages);
    if (tools.end.kind === 'deadline') return end(turn, 'deadline', tools.end.why);
    if (tools.end.kind === 'fatal') {
      const partial = turn.partial('non-retryable', tools.end.why);
      throw stopped(
        turn,
        'non-retryable',
        ApplicationFailure.create({
          type: TURN_TOOL_FATAL,
          nonRetryable: true,
          message: `agent turn stopped (non-retryable) at step ${step.step}: ${tools.end.why}`,
          details: [partial],
        }),
      );
    }
  }
}

function openTurn(input: AgentTurnInput): TurnState {
  try {
    validateTurnInput(input);
    const carried = input.carried;
    if (carried) {
      resumeCallCount(carried.callCount);
      const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
      return new TurnState(
        carried.plan,
        maxSteps,
        carried.inputCount,
        carried.messages,
        carried,
        carried.tools,
      );
    }
    const plan: ResolvedPlan = turnPlan(input, {
      nowMs: Date.now(),
      chainStartMs: workflowInfo().startTime.getTime(),
      atSubmission: false,
    });
    const messages: ChatMessage[] = turnMessages(input);
    return new TurnState(plan, input.maxSteps ?? DEFAULT_MAX_STEPS, messages.length, messages, {}, []);
  } catch (error) {
    throw inputFailure(error, InvalidAgentTurnInputError, INVALID_AGENT_TURN_INPUT);
  }
}

async function describeTools(names: string[]): Promise<TurnToolDefinition[]> {
  const { describeTools: describe } = proxyActivities<ToolActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 3 },
    summary: `describe tools ${names.join(', ')}`,
  });
  try {
    return await describe(names);
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure) {
      throw ApplicationFailure.create({
        type: cause.type ?? 'UnknownTool',
        nonRetryable: true,
        message: cause.message,
      });
    }
    throw error;
  }
}

function end(turn: TurnState, reason: TurnEnd, why: string, call?: ModelCallFailedDetails): AgentTurnResult {
  turn.phase = 'stopped';
  turn.stopReason = reason;
  const partial = turn.partial(reason, why, call?.lastDecision);
  if (reason === 'succeeded') partial.text = turn.steps.at(-1)?.text ?? partial.text;
  return { ...partial, stopReason: reason };
}

function stopped<E>(turn: TurnState, reason: StopReason, error: E): E {
  turn.phase = 'stopped';
  turn.stopReason = reason;
  return error;
}

function callFailedDetails(error: unknown): ModelCallFailedDetails | undefined {
  if (!(error instanceof ApplicationFailure) || error.type !== MODEL_CALL_FAILED) return undefined;
  return error.details?.[0] as ModelCallFailedDetails | undefined;
}

/**
 * A model call that stopped without an answer (not at the deadline) ends the turn with the call's own failure
 * type, `ModelCallFailed`, so history readers find its stop reason and last decision where they look for them;
 * its details add what the turn had done so far (`turn`).
 */
function turnCallFailed(
  turn: TurnState,
  failure: ApplicationFailure,
  details: ModelCallFailedDetails,
): ApplicationFailure {
  const step = turn.steps.at(-1)?.step ?? 0;
  const partial = turn.partial(details.stopReason, details.lastDecision.why, details.lastDecision);
  return ApplicationFailure.create({
    type: MODEL_CALL_FAILED,
    nonRetryable: true,
    message: `agent turn stopped (${details.stopReason}) at step ${step}: ${failure.message}`,
    details: [{ ...details, turn: partial }],
  });
}

function refuseIfTooLarge(what: string, value: unknown): void {
  const why = tooLarge(what, jsonBytes(value));
  if (why !== undefined) {
    throw ApplicationFailure.create({ type: TURN_TOO_LARGE, nonRetryable: true, message: why });
  }
}
