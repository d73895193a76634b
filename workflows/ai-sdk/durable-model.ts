import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { ApplicationFailure } from '@temporalio/workflow';
import { addSpent, NOTHING_SPENT } from '../../policy/index.js';
import type { Budget, RetryPlan } from '../../policy/index.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { ModelCallInput, ModelCallResult } from '../../common/call.js';
import type { StreamOptions } from '../../common/stream.js';
import { INVALID_MODEL_CALL_INPUT, MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import type { SpentBefore } from '../call/budget-watch.js';
import { callModel } from '../call/model-call.js';
import { InvalidModelCallInputError } from '../../common/input-error.js';
import { inputFailure } from '../call/input-failure.js';
import { convertRequest } from './prompt.js';
import { generateResult, modelOf, providerOf, streamParts } from './result.js';
import { ownSpent, planOf, runCancellable } from './model-requests.js';

/** How a durable model's requests run. Every field is plain JSON except `workflowStream`. */
export interface DurableModelOptions {
  /**
   * The retry plan of every request (see `RetryPlan`). Absent: {@link DEFAULT_DURABLE_MODEL_PLAN} (about the AI
   * SDK's own default: 3 attempts, 2 s then 4 s apart, retry-after honoured up to 60 s); `false`: one attempt.
   */
  retry?: RetryPlan | false;
  /** An absolute deadline (ISO) for every request; not with `deadlineInMs`. */
  deadline?: string;
  /** A deadline in ms from the start of the workflow chain (`workflowInfo().startTime`), shared by every request. */
  deadlineInMs?: number;
  /** Time every request leaves to the workflow at the deadline. @default 60000 */
  reserveMs?: number;
  /**
   * Whether requests publish their text deltas into the workflow's stream for outside subscribers.
   * @default `streamText`'s requests stream (batch 500 ms), `generateText`'s do not; `true` / `{ batchMs, onCut }`:
   * all do; `false`: none (then `streamText` gets its answer when the attempt ends, and nobody outside sees deltas).
   * `{ onCut: 'continue' }`: a cut stream is continued by the next attempt instead of stopping the call.
   */
  stream?: boolean | StreamOptions;
  /** The workflow's own `WorkflowStream`, when it made one (a workflow has one stream). */
  workflowStream?: WorkflowStream;
  /**
   * What everything this model object asks may spend together (failed attempts included), like an agent turn's
   * budget across its calls: a request whose next attempt would pass it stops `budget` (`ModelCallFailed`).
   */
  budget?: Budget;
  /**
   * Who the requests are for (see `ModelCallInput.tenant`): each request's attempts carry it as Temporal's fairness
   * key, with the weight the worker's tenants file gives it. Nothing is set on the workflow itself.
   */
  tenant?: string;
}

const OPTION_KEYS: readonly string[] = [
  'retry',
  'deadline',
  'deadlineInMs',
  'reserveMs',
  'stream',
  'workflowStream',
  'budget',
  'tenant',
];

/** What a call's input may carry beyond `ModelCallInput` on this branch: structured output. */
type RequestInput = ModelCallInput & { output?: { schema: Record<string, unknown>; repairs?: number } };

/** How one request runs: cancelled by the AI SDK's abort signal, or by the caller (a stream that was cancelled). */
interface RequestControl {
  signal?: AbortSignal;
  /** Whether the caller may cancel it (a stream's reader): it then runs in a cancellable scope of its own. */
  cancellable?: boolean;
  /** Set by the request when it is cancellable: cancels it (its scope), as a host cancel would. */
  cancel?: () => void;
}

/**
 * An AI SDK `LanguageModel` (specification v4, what `ai` 7 expects) for workflow code: every request the AI SDK
 * makes of it (`generateText`, `streamText`, `generateObject`, each step of a tool loop) is one durable model call
 * (`callModel`) carrying the AI SDK's request whole: its attempts are activities classified by model-retry, its
 * waits durable timers, `model` a chain of backends (`provider:model`). The retry-after times a backend answered
 * with are kept across the requests of one model object, as an agent turn keeps them across its steps.
 *
 * `modelId` and `provider` name the chain's first backend as the AI SDK would without model-retry (`gpt-4o-mini`,
 * `openai`), so its telemetry names spans the same; the backend that answered is in `providerMetadata.modelRetry`.
 */
export class DurableLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider: string;
  readonly modelId: string;
  /** Every URL: the sandbox has no fetch, so the AI SDK must never download a file here. */
  readonly supportedUrls: Record<string, RegExp[]> = { '*': [/^/] };
  private readonly chain: string[];
  private readonly notBefore: SharedNotBefore = {};
  /** What this model object's requests spent so far, under a `budget`. */
  private spent: SpentBefore | undefined;

  constructor(
    model: string | string[],
    private readonly options: DurableModelOptions = {},
  ) {
    const unknown = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
    if (unknown !== undefined) {
      const error = new InvalidModelCallInputError(
        unknown,
        `not an option of durableModel (known: ${OPTION_KEYS.join(', ')}): remove it or fix its name`,
      );
      throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
    }
    this.chain = typeof model === 'string' ? [model] : [...model];
    const first = String(this.chain[0] ?? '');
    this.modelId = modelOf(first);
    this.provider = providerOf(first);
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const stream = this.options.stream === undefined ? false : this.options.stream;
    const control: RequestControl = options.abortSignal ? { signal: options.abortSignal } : {};
    return generateResult(await this.call(options, stream, control), this.chain);
  }

  /**
   * Resolves at once with the stream of the answer. The call runs meanwhile; its answer is replayed as stream
   * parts when it ends, and a call that fails (`ModelCallFailed`, a cancellation, an input refused) errors the
   * stream with that failure: never an `error` part, which the AI SDK would hand to `onError` and swallow.
   */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const control: RequestControl = {
      cancellable: true,
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    };
    let ended = false;
    const end = (then: () => void): void => {
      if (ended) return;
      ended = true;
      try {
        then();
      } catch {
        // The stream was cancelled or errored meanwhile: nobody reads it any more.
      }
    };
    // The AI SDK reads the response's headers when the step finishes: filled in before the parts are enqueued.
    const response: NonNullable<LanguageModelV4StreamResult['response']> = {};
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (controller) => {
        this.call(options, this.options.stream ?? true, control).then(
          (result) => {
            let parts: LanguageModelV4StreamPart[];
            try {
              parts = streamParts(result, this.chain);
              const headers = result.output.response?.headers;
              if (headers !== undefined) response.headers = headers;
            } catch (error) {
              end(() => controller.error(error));
              return;
            }
            end(() => {
              for (const part of parts) controller.enqueue(part);
              controller.close();
            });
          },
          (failure: unknown) => end(() => controller.error(failure)),
        );
      },
      cancel: () => {
        // Nobody wants the answer any more (the AI SDK was aborted, or its reader stopped): the call stops.
        ended = true;
        control.cancel?.();
      },
    });
    return { stream, response };
  }

  private async call(
    options: LanguageModelV4CallOptions,
    stream: boolean | StreamOptions,
    control: RequestControl,
  ): Promise<ModelCallResult> {
    const request = convertRequest(options);
    // A structured answer is validated whole, so it is not streamed (model-retry refuses `stream` with a
    // schema); `streamText` with `Output.object` gets its parts when the attempt ends.
    const streams = stream !== false && request.output === undefined;
    const input: RequestInput = {
      model: this.chain,
      ...request,
      ...this.plan(),
      ...(streams ? { stream } : {}),
      ...(this.options.budget !== undefined ? { budget: this.options.budget } : {}),
      ...(this.options.tenant !== undefined ? { tenant: this.options.tenant } : {}),
    };
    // Requests made at once (a `Promise.all` over one model) are each given what was spent before them.
    const before = this.spent;
    try {
      const result = await this.run(input, before, control);
      this.count(result.spent, before, result.usage?.outputTokens);
      return result;
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === MODEL_CALL_FAILED) {
        const details = error.details?.[0] as ModelCallFailedDetails | undefined;
        this.count(details?.spent, before, undefined);
      }
      throw error;
    }
  }

  /**
   * The call, in a cancellable scope of its own when it may be cancelled alone (an abort signal, a stream): the
   * signal cancels it as a host cancel would, and it then rejects with the signal's reason. A cancellation of the
   * workflow itself rejects with Temporal's own `CancelledFailure`, so the run ends cancelled.
   */
  private async run(
    input: RequestInput,
    before: SpentBefore | undefined,
    control: RequestControl,
  ): Promise<ModelCallResult> {
    const callOptions = {
      notBefore: this.notBefore,
      ...(before ? { spentBefore: before } : {}),
      ...(this.options.workflowStream ? { stream: this.options.workflowStream } : {}),
    };
    const { signal } = control;
    // No scope (each is promises Temporal's sandbox tracks) for a request nothing but the host may cancel.
    if (signal === undefined && control.cancellable !== true) return callModel(input, callOptions);
    return runCancellable(
      () => callModel(input, callOptions),
      signal,
      (cancel) => (control.cancel = cancel),
    );
  }

  /**
   * Adds what one request spent to what the model object spent. A call's `spent` counts from the `before` it was
   * given; requests made at once were given the same `before`, so only the call's own part is added (keeping the
   * last call's `spent` forgot what the others spent meanwhile).
   */
  private count(
    spent: ModelCallResult['spent'],
    before: SpentBefore | undefined,
    outputTokens: number | undefined,
  ): void {
    if (spent === undefined) return;
    const own = ownSpent(spent, before?.spent ?? NOTHING_SPENT);
    const largestOutput = Math.max(this.spent?.largestOutput ?? 0, outputTokens ?? 0);
    this.spent = { spent: addSpent(this.spent?.spent ?? NOTHING_SPENT, own), largestOutput };
  }

  /** The plan of every request (see `planOf`). */
  private plan(): { retry: RetryPlan | false } {
    return { retry: planOf(this.options) };
  }
}

/**
 * A durable model for the AI SDK in workflow code, where `@temporalio/ai-sdk`'s `TemporalProvider` would stand:
 * `generateText({ model: durableModel(['openai:gpt-4o-mini', 'anthropic:claude-haiku-4-5'], { retry: { backoff:
 * {} }, deadlineInMs: 120_000 }), tools, stopWhen, prompt })`. See `DurableModelOptions`.
 */
export function durableModel(
  model: string | string[],
  options: DurableModelOptions = {},
): DurableLanguageModel {
  return new DurableLanguageModel(model, options);
}
