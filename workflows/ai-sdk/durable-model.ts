import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { RetryPlan } from '../../policy/index.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { ModelCallInput, ModelCallResult } from '../../common/call.js';
import type { StreamOptions } from '../../common/stream.js';
import { INVALID_MODEL_CALL_INPUT } from '../../common/call.js';
import { callModel } from '../call/model-call.js';
import { InvalidModelCallInputError } from '../call/input-error.js';
import { inputFailure } from '../call/input-failure.js';
import { convertRequest } from './prompt.js';
import { generateResult, streamParts } from './result.js';

/** How a durable model's requests run. Every field is plain JSON except `workflowStream`. */
export interface DurableModelOptions {
  /** The retry plan of every request (see `RetryPlan`); absent or `false`: one attempt per request. */
  retry?: RetryPlan | false;
  /** An absolute deadline (ISO) for every request; not with `deadlineInMs`. */
  deadline?: string;
  /** A deadline in ms from the start of the workflow chain (`workflowInfo().startTime`), shared by every request. */
  deadlineInMs?: number;
  /** Time every request leaves to the workflow at the deadline. @default 60000 */
  reserveMs?: number;
  /**
   * Whether requests publish their text deltas into the workflow's stream for outside subscribers.
   * @default `streamText`'s requests stream (batch 500 ms), `generateText`'s do not; `true` / `{ batchMs }`: all
   * do; `false`: none (then `streamText` gets its answer when the attempt ends, and nobody outside sees deltas).
   */
  stream?: boolean | StreamOptions;
  /** The workflow's own `WorkflowStream`, when it made one (a workflow has one stream). */
  workflowStream?: WorkflowStream;
}

/** What a call's input may carry beyond `ModelCallInput` on this branch: structured output. */
type RequestInput = ModelCallInput & { output?: { schema: Record<string, unknown>; repairs?: number } };

/**
 * An AI SDK `LanguageModel` (specification v4, what `ai` 7 expects) for workflow code: every request the AI SDK
 * makes of it (`generateText`, `streamText`, `generateObject`, each step of a tool loop) is one durable model call
 * (`callModel`): its attempts are activities classified by model-retry, its waits durable timers, `model` a chain
 * of backends (`provider:model`). The retry-after times a backend answered with are kept across the requests of
 * one model object, as an agent turn keeps them across its steps.
 */
export class DurableLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'model-retry';
  readonly modelId: string;
  /** Every URL: the sandbox has no fetch, so the AI SDK must never download a file here. */
  readonly supportedUrls: Record<string, RegExp[]> = { '*': [/^/] };
  private readonly chain: string[];
  private readonly notBefore: SharedNotBefore = {};

  constructor(
    model: string | string[],
    private readonly options: DurableModelOptions = {},
  ) {
    this.chain = typeof model === 'string' ? [model] : [...model];
    this.modelId = this.chain.join(',');
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const stream = this.options.stream === undefined ? false : this.options.stream;
    return generateResult(await this.call(options, stream));
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const result = await this.call(options, this.options.stream ?? true);
    const parts = streamParts(result);
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
    return { stream };
  }

  private async call(
    options: LanguageModelV4CallOptions,
    stream: boolean | StreamOptions,
  ): Promise<ModelCallResult> {
    let input: RequestInput;
    try {
      input = {
        model: this.chain,
        ...convertRequest(options),
        ...this.plan(),
        ...(stream !== false ? { stream } : {}),
      };
    } catch (error) {
      throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
    }
    return callModel(input, {
      notBefore: this.notBefore,
      ...(this.options.workflowStream ? { stream: this.options.workflowStream } : {}),
    });
  }

  /** The plan with the model's deadline in it; a deadline without a plan bounds a single attempt. */
  private plan(): { retry?: RetryPlan } {
    const { retry, deadline, deadlineInMs, reserveMs } = this.options;
    const bounds = {
      ...(deadline !== undefined ? { deadline } : {}),
      ...(deadlineInMs !== undefined ? { deadlineInMs } : {}),
      ...(reserveMs !== undefined ? { reserveMs } : {}),
    };
    if (Object.keys(bounds).length === 0) return retry ? { retry } : {};
    return { retry: retry ? { ...retry, ...bounds } : { maxAttempts: 1, ...bounds } };
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
