import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { cancelledStop, initialState, startDecision, validatePlan } from '../../policy/index.js';
import type { Decision, ResolvedPlan } from '../../policy/index.js';
import type { ModelRequestInput } from '../../common/attempt.js';
import { inputFailure } from './input-failure.js';
import { nextCallId, openCallEntry } from './call-log.js';
import { iso } from '../../common/iso.js';
import { CallRun } from './call-run.js';
import type { Ended } from './call-run.js';
import { noteClassesMet } from './call-stop.js';
import { CallTrace } from './call-trace.js';
import { CallStream } from './call-stream.js';
import type { StreamConfig } from '../../common/stream.js';
import { seededState, shareNotBefore, startWithNotBefore } from '../../policy/shared-not-before.js';
import {
  checkCallInput,
  checkOnCutPlan,
  InvalidModelCallInputError,
} from '../../common/call-input/call-input.js';
import type { CheckedOutput } from '../../common/call-input/call-output.js';
import { HistoryWatch } from './history-watch.js';
import { watchBudget } from './budget-watch.js';
import { askWorkerConfig, noteWorkerConfig, workerConfigAnswered } from './worker-config.js';
import { jsonBytes } from '../../common/turn-input.js';
import { objectBytes } from '../turn/conversation-bytes.js';
import { estimateInputTokens } from '../../common/token-estimate.js';
import { providerBoundProblem } from '../../common/provider-bound.js';
import { checkHeaders } from '../../common/request-secrets.js';
import { INVALID_MODEL_CALL_INPUT } from '../../common/call.js';
import { DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES } from '../../common/worker-config.js';
import { tenantBoundProblem } from '../../common/call-input/tenant-bound.js';
import type { WorkerConfig } from '../../common/worker-config.js';
import type { CallStatus, ModelCallInput, ModelCallResult } from '../../common/call.js';
import type { CallModelOptions, TurnCallOptions } from './call-options.js';

export { HEARTBEAT_TIMEOUT_MS } from './model-request.js';
export type { CallModelOptions, TurnCallOptions } from './call-options.js';

/**
 * One durable model call, usable from any workflow: each attempt is an activity (`modelRequest`, activity id
 * `<callId>.<attempt>`, no Temporal retry), each wait a durable timer, and the retry plan decides what follows
 * a failure. Resolves with the answer and every attempt's record; a call that stops without an answer throws a
 * non-retryable `ApplicationFailure` of type `ModelCallFailed`. Cancelling the calling scope cancels the call:
 * the wait ends or the request is aborted, and the cancellation is rethrown unchanged.
 *
 * With `input.stream`, attempts stream: their text deltas reach the workflow's stream as they come, and a
 * failed attempt any of whose deltas is in the stream log stops the call `stream-interrupted` (never re-sent),
 * with the delivered text as `partialText`.
 */
export function callModel(input: ModelCallInput, options: CallModelOptions = {}): Promise<ModelCallResult> {
  // No `messagesBytes` from a user (the public type has none, and plain JavaScript is held to it too).
  const { messagesBytes: _ignored, ...publicOptions } = options as TurnCallOptions;
  return runCallSteps(callSteps(input, publicOptions));
}

/**
 * A call's steps: what it waits for next (an activity, a timer, a local activity, an upsert's end), each
 * handed to whoever drives it, who sends back what it resolved with (`next`) or what it threw (`throw`). The
 * return value is the call's result; a call that stops without an answer throws. `callModel` drives it with
 * `runCallSteps`; an agent turn drives it in its own loop, so that the call is no async function of its own:
 * each of those is a promise that Temporal's sandbox takes a stack trace of, and awaits again. Worth it: with the
 * call as one async function and the turn awaiting it, a replayed agent turn counted 32 % more instructions
 * (scripts/profile/replay-instructions.ts), a replayed call 6.4 % more.
 */
export type CallSteps = Generator<Promise<unknown>, ModelCallResult, unknown>;

/** Drives a call's steps (see `CallSteps`) to the call's result (`agentTurnWorkflow`'s loop in agent-turn.ts drives them the same way, inline). */
export async function runCallSteps(steps: CallSteps): Promise<ModelCallResult> {
  let step = steps.next();
  while (!step.done) {
    let value: unknown;
    try {
      value = await step.value;
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next(value);
  }
  return step.value;
}

/** {@link callModel}'s steps, with the turn's own options: for `workflows/turn/` only. */
export function* callSteps(given: ModelCallInput, options: TurnCallOptions = {}): CallSteps {
  const input =
    options.tenant !== undefined && given.tenant === undefined ? { ...given, tenant: options.tenant } : given;
  const { plan, backends, request, stream: streaming, output } = prepare(input, options.plan);
  const callId = nextCallId();
  const status: CallStatus = {
    callId,
    state: 'attempting',
    attempt: 0,
    backend: 0,
    model: backends[0] as string,
    ...(plan.deadlineMs !== undefined ? { deadline: iso(plan.deadlineMs) } : {}),
  };
  const { records } = openCallEntry(status);
  options.onStart?.({ callId, status, records });
  const stream = new CallStream(callId, streaming, options.stream);
  const shared = options.notBefore;
  // Asked once per run and tenant at the first call's start (one marker in history): limits, prices and the payload
  // store. A later call of the run has the answer already and awaits nothing (an await is a promise, which Temporal's
  // stack-trace hook captures).
  // A failed ask (a worker of the user's own without the activity, or the call cancelled meanwhile) means the
  // defaults, as in `workerConfig` (the same steps, as an async function for callers outside a call).
  const answered = workerConfigAnswered(input.tenant);
  let config = answered?.config;
  if (!answered) {
    try {
      config = (yield askWorkerConfig(input.tenant)) as WorkerConfig;
    } catch {
      config = undefined;
    }
    config = noteWorkerConfig(config, input.tenant);
  }
  // Credential headers and provider-bound tools and file references, now that the worker said which headers it
  // allows and what its providers are.
  try {
    checkHeaders(input.headers, config?.allowHeaders ?? []);
    const bound =
      providerBoundProblem(request, backends, config?.providerKeys) ??
      tenantBoundProblem(
        input.tenant,
        backends,
        { maxOutputTokens: input.settings?.maxOutputTokens, embed: request.embed !== undefined },
        config,
      );
    if (bound) throw new InvalidModelCallInputError(bound.field, bound.message);
  } catch (error) {
    // The call was opened (its status is queryable): it ends here, before any attempt.
    Object.assign(status, { state: 'stopped', stopReason: 'non-retryable' });
    throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
  }
  const sizes = inputSizes(
    request,
    input.system === undefined && input.prompt === undefined ? options.messagesBytes : undefined,
  );
  const history = new HistoryWatch(
    sizes.withSettings,
    config?.payloadStore === true
      ? {
          thresholdBytes: config.payloadStoreThresholdBytes ?? DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES,
          request,
        }
      : undefined,
  );
  const budget = watchBudget(input.budget, config, {
    backends,
    records,
    inputBytes: sizes.withoutSettings,
    ...(input.budget !== undefined ? { inputTokens: estimateInputTokens(request) } : {}),
    maxOutputTokens: input.settings?.maxOutputTokens,
    before: options.spentBefore,
  });
  const call = new CallRun({
    callId,
    input,
    plan,
    backends,
    request,
    stream,
    status,
    records,
    shared,
    history,
    output,
    budget,
    worker: config,
  });
  const run = { ...history.start(), ...(budget ? { budget: budget.outlook() } : {}) };
  const state = shared ? seededState(backends, shared) : initialState(backends.length);
  // Cancellation first: it may have come while the worker was asked for its settings (a local activity, whose
  // cancellation is swallowed above like any failed ask), and it wins over any stop the start would make.
  let next: Decision = CancellationScope.current().consideredCancelled
    ? cancelledStop(state)
    : shared
      ? startWithNotBefore(plan, state, Date.now(), run)
      : startDecision(plan, state, Date.now(), run);
  if (shared) shareNotBefore(backends, next.state, shared);
  const spans = new CallTrace(
    callId,
    backends,
    config?.genAiProviders,
    request.embed ? 'embeddings' : 'chat',
  );
  try {
    while (next.kind === 'attempt') {
      spans.waiting(next, records.at(-1));
      // Awaited only when there is something to wait for (a timer, a cooling check): see `CallRun.wait`.
      const checked = call.wait(next);
      next = checked instanceof Promise ? ((yield checked) as Decision) : checked;
      if (next.kind === 'stop') break;
      const record = call.open(next);
      const span = spans.attempt(record, () => call.attempt(record));
      let ended: Ended;
      try {
        ended = { kind: 'answered', result: (yield span.value) as Awaited<typeof span.value> };
      } catch (error) {
        ended = call.raised(error);
      }
      next = call.decide(next.state, record, call.record(record, ended));
      span.done(ended.kind === 'answered' ? ended.result : undefined);
      // A call that stops here sets the classes with the rest at its stop: no second upsert. Usually there is
      // nothing to wait for (`undefined`), and then nothing is awaited.
      if (record.failure && next.kind === 'attempt') {
        const noted = noteClassesMet(records);
        if (noted) yield noted;
      }
    }
    spans.stopped(next, records);
  } catch (error) {
    spans.abandoned(error);
    throw error;
  }
  return call.stop(next);
}

/**
 * The attempt's request as UTF-8 JSON bytes, as workflow code sees it: whole for the history watch (with a payload
 * store, the input is stored as a reference and neither Temporal's 2 MB payload limit nor its size in history
 * applies to it), only its prompt and tools for the budget. Each part is serialized once; `messagesBytes` is the
 * prompt's own count when the caller keeps it (an agent turn, whose conversation grows by a few messages a step).
 */
function inputSizes(
  request: ModelRequestInput['request'],
  messagesBytes: number | undefined,
): { withSettings: number; withoutSettings: number } {
  const parts: [string, number][] = [['prompt', messagesBytes ?? jsonBytes(request.prompt)]];
  if (request.tools) parts.push(['tools', jsonBytes(request.tools)]);
  const withoutSettings = objectBytes(parts);
  const rest = Object.entries(request).filter(([key]) => key !== 'prompt' && key !== 'tools');
  if (rest.length === 0) return { withSettings: withoutSettings, withoutSettings };
  return {
    withSettings: objectBytes([...parts, ...rest.map(([k, v]): [string, number] => [k, jsonBytes(v)])]),
    withoutSettings,
  };
}

function prepare(
  input: ModelCallInput,
  given: ResolvedPlan | undefined,
): {
  plan: ResolvedPlan;
  backends: string[];
  request: ModelRequestInput['request'];
  stream: StreamConfig | undefined;
  output: CheckedOutput | undefined;
} {
  try {
    // Credential headers are checked once the worker has said which it allows (below, after its config).
    const checked = checkCallInput(input, { allowHeaders: 'any' });
    const plan =
      given ??
      validatePlan(input.retry, {
        nowMs: Date.now(),
        chainStartMs: workflowInfo().startTime.getTime(),
        atSubmission: false,
      });
    checkOnCutPlan(checked.stream, plan.maxAttempts);
    // The AI SDK's record shape of `tools` is our list here, so the attempt's input is plain JSON.
    return { plan, ...checked };
  } catch (error) {
    throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
  }
}
