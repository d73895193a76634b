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
import type { Budget, RetryPlan, Spent } from '../../policy/index.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { ModelCallInput, ModelCallResult } from '../../common/call.js';
import type { StreamOptions } from '../../common/stream.js';
import { INVALID_MODEL_CALL_INPUT, MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import type { SpentBefore } from '../call/budget-watch.js';
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
  /**
   * What everything this model object asks may spend together (failed attempts included), like an agent turn's
   * budget across its calls: a request whose next attempt would pass it stops `budget` (`ModelCallFailed`).
   */
  budget?: Budget;
}

const OPTION_KEYS: readonly string[] = [
  'retry',
  'deadline',
  'deadlineInMs',
  'reserveMs',
  'stream',
  'workflowStream',
  'budget',
];

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
      const request = convertRequest(options);
      // A structured answer is validated whole, so it is not streamed (model-retry refuses `stream` with a
      // schema); `streamText` with `Output.object` gets its parts when the attempt ends.
      const streams = stream !== false && request.output === undefined;
      input = {
        model: this.chain,
        ...request,
        ...this.plan(),
        ...(streams ? { stream } : {}),
        ...(this.options.budget !== undefined ? { budget: this.options.budget } : {}),
      };
    } catch (error) {
      throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
    }
    // Requests made at once (a `Promise.all` over one model) are each given what was spent before them.
    const before = this.spent;
    try {
      const result = await callModel(input, {
        notBefore: this.notBefore,
        ...(before ? { spentBefore: before } : {}),
        ...(this.options.workflowStream ? { stream: this.options.workflowStream } : {}),
      });
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
    const own = minus(spent, before?.spent ?? NOTHING_SPENT);
    const largestOutput = Math.max(this.spent?.largestOutput ?? 0, outputTokens ?? 0);
    this.spent = { spent: addSpent(this.spent?.spent ?? NOTHING_SPENT, own), largestOutput };
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

/** What `a` spent beyond `b` (a call's own part of its `spent`). */
function minus(a: Spent, b: Spent): Spent {
  return {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    totalTokens: a.totalTokens - b.totalTokens,
    costUsd: a.costUsd - b.costUsd,
  };
}
