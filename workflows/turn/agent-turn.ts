import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ResolvedPlan } from '../../policy/index.js';
import type { WireMessage } from '../../common/request.js';
import type { ToolActivities } from '../../common/tools.js';
import { resumeCallCount } from '../call/call-log.js';
import { recordStop, stopReasonOf, trackClassesMet } from '../call/call-stop.js';
import { inputFailure } from '../call/input-failure.js';
import { closeStream, workflowStream } from '../stream.js';
import { workerConfig } from '../call/worker-config.js';
import {
  DEFAULT_MAX_STEPS,
  InvalidAgentTurnInputError,
  jsonBytes,
  turnMessages,
  turnPlan,
  validateTurnInput,
} from '../../common/turn-input.js';
import { TurnState } from './turn-state.js';
import { MAX_OUTCOME_BYTES, outcomeTooLarge } from './turn-size.js';
import { CONTINUE_AS_NEW, TurnSteps } from './turn-steps.js';
import type { OneEnd, StartedToolCalls } from './turn-tools.js';
import type { ModelCallResult } from '../../common/call.js';
import type { TurnStop } from './turn-steps.js';
import { INVALID_AGENT_TURN_INPUT, TURN_TOO_LARGE } from '../../common/turn.js';
import type { AgentTurnInput, AgentTurnResult } from '../../common/turn.js';

/**
 * One agent turn: model calls and the tool calls they ask for, in a loop, under one deadline. Each model call is
 * a `callModel` (its own attempts and waits, ids `c1`, `c2`, ...) sharing the turn's plan (deadline, reserve)
 * and the backends' retry-after times; the tool calls of one answer run in parallel as `runTool` activities
 * (ids `<callId>.tool.<n>`). Ends with a final answer (`succeeded`), after `maxSteps` model calls
 * (`max-steps`) or at the deadline with the reserve left (`deadline`), returning an `AgentTurnResult`; fails
 * with `ModelCallFailed` when a model call stops otherwise, with `AgentTurnToolFatal` on a fatal tool failure,
 * and ends CANCELED when cancelled. Continues as new when Temporal suggests it, at a step boundary. When it
 * stops (not when it continues as new) it sets the run's search attributes once, over every attempt of the chain
 * (see `recordStop`); while it runs, it keeps `ModelRetryClasses` current as its calls meet new failure classes
 * (see `noteClassesMet`), like a call, so `list --class` finds a running turn.
 */
export async function agentTurnWorkflow(input: AgentTurnInput): Promise<AgentTurnResult> {
  trackClassesMet();
  const turn = openTurn(input);
  turn.register();
  workflowStream(input.carried?.stream);
  let result: AgentTurnResult;
  // The turn's loop is this function's own: an async function of its own would be one more promise, which
  // Temporal's sandbox takes a stack trace of. Each step (the checks before it, its model call, its
  // tool calls) either goes on or says how the turn stops, and `finish` is the one way it stops. The loop awaits
  // the tools' descriptions, the model call's steps and the tool calls, and nothing else (see `TurnSteps`).
  try {
    if (input.carried === undefined && input.tools && input.tools.length > 0) {
      try {
        turn.tools = await toolDescriber(input.tools)(input.tools);
      } catch (error) {
        throw describeFailure(error);
      }
    }
    const steps = new TurnSteps(input, turn);
    for (;;) {
      let stop = steps.before();
      if (stop === CONTINUE_AS_NEW) return await steps.continueAsNew();
      if (stop === undefined) {
        let answer: ModelCallResult | undefined;
        try {
          // The call's steps, driven here as `runCallSteps` (model-call.ts) drives them: one await per thing the
          // call waits for. Not shared: a shared driver is an async function, the promise this loop saves (with it
          // and the call's other awaits plain, a replayed turn counted 32 % more instructions: see `CallSteps`).
          const call = steps.model();
          let step = call.next();
          while (!step.done) {
            let value: unknown;
            try {
              value = await step.value;
            } catch (error) {
              step = call.throw(error);
              continue;
            }
            step = call.next(value);
          }
          answer = step.value;
        } catch (error) {
          stop = steps.modelFailed(error);
        }
        if (answer) stop = steps.answered(answer);
      }
      if (stop === undefined) {
        let tools: StartedToolCalls | undefined;
        let settled: PromiseSettledResult<OneEnd>[] | undefined;
        try {
          tools = steps.tools();
          if (tools.one) {
            // One tool activity (the common case): awaited here, and nothing chained on it (see `startToolCalls`).
            let outcome: Parameters<typeof tools.one.settled>[0];
            try {
              outcome = { ok: true, result: await tools.one.activity };
            } catch (error) {
              outcome = { ok: false, error };
            }
            settled = tools.one.settled(outcome);
          } else settled = await tools.settled;
        } catch (error) {
          stop = steps.toolsFailed(error);
        }
        if (tools && settled) stop = steps.toolsEnded(tools.started, settled);
      }
      if (stop) {
        result = finish(turn, stop);
        break;
      }
    }
    // Measured once, at the end; awaited only when over (every await is a promise the sandbox traces).
    const bytes = jsonBytes(result);
    if (bytes > MAX_OUTCOME_BYTES) await refuseResultTooLarge(turn, bytes, result);
  } catch (error) {
    // Continue-as-new is no stop (no stop reason); an input refused without a stop reason is not recorded either.
    const reason = turn.stopReason ?? stopReasonOf(error);
    const recorded = reason ? recordStop(reason, turn.attempts()) : undefined;
    if (recorded) await recorded;
    const closed = closeStream();
    if (closed) await closed;
    throw error;
  }
  // Usually done at once (`undefined`): awaited only when not, since every await is a promise the sandbox takes
  // a stack trace of. The commands are the same either way.
  const recorded = recordStop(result.stopReason, turn.attempts());
  if (recorded) await recorded;
  // Nobody subscribed (the common case): nothing to wait for, and no promise made for it.
  const closing = closeStream();
  if (closing) await closing;
  return result;
}

/**
 * A result over Temporal's payload limit (it carries the final answer three times: `text`, the last message and
 * the last step) would make the server terminate the run: unless the worker keeps long strings in a payload store
 * and what stays inline fits (the worker said so at the turn's first call, so asking adds no command), the turn
 * fails `AgentTurnTooLarge` instead, like a conversation too large to send, with no stop reason recorded.
 */
async function refuseResultTooLarge(turn: TurnState, bytes: number, result: unknown): Promise<void> {
  if (!outcomeTooLarge(bytes, await workerConfig(), result)) return;
  turn.stopReason = undefined;
  const mb = (n: number) => (n / 1_000_000).toFixed(2);
  throw ApplicationFailure.create({
    type: TURN_TOO_LARGE,
    nonRetryable: true,
    message:
      `the turn's result is ${mb(bytes)} MB of JSON, over Temporal's limit of ${mb(MAX_OUTCOME_BYTES)} MB on one ` +
      'payload (it carries the final answer three times): lower `settings.maxOutputTokens`, or turn on the ' +
      'payload store on workers and clients (MODEL_RETRY_PAYLOAD_STORE; see docs/operations/security.md), so that ' +
      'long strings are stored once and the result carries references',
  });
}

/** Ends the turn as `stop` says: its result, or the error it throws (the turn's status says why, either way). */
function finish(turn: TurnState, stop: TurnStop): AgentTurnResult {
  turn.phase = 'stopped';
  turn.stopReason = stop.reason;
  if (stop.kind === 'throw') throw stop.error;
  const partial = turn.partial(stop.reason, stop.why, stop.call?.lastDecision);
  if (stop.reason === 'succeeded') partial.text = turn.steps.at(-1)?.text ?? partial.text;
  return { ...partial, stopReason: stop.reason };
}

function openTurn(input: AgentTurnInput): TurnState {
  try {
    // Credential headers are checked at each model call, once the worker has said which it allows.
    validateTurnInput(input, { allowHeaders: 'any' });
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
    const messages: WireMessage[] = turnMessages(input);
    return new TurnState(plan, input.maxSteps ?? DEFAULT_MAX_STEPS, messages.length, messages, {}, []);
  } catch (error) {
    throw inputFailure(error, InvalidAgentTurnInputError, INVALID_AGENT_TURN_INPUT);
  }
}

/** The `describeTools` activity for `names` (its summary names them). */
function toolDescriber(names: string[]): ToolActivities['describeTools'] {
  return proxyActivities<ToolActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 3 },
    summary: `describe tools ${names.join(', ')}`,
  }).describeTools;
}

/** A tool the worker does not know fails the turn at once, with the worker's type (`UnknownTool`) and message. */
function describeFailure(error: unknown): unknown {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (!(cause instanceof ApplicationFailure)) return error;
  return ApplicationFailure.create({
    type: cause.type ?? 'UnknownTool',
    nonRetryable: true,
    message: cause.message,
  });
}
