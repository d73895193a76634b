import type { EmbeddingModelV4, EmbeddingModelV4CallOptions, EmbeddingModelV4Result } from '@ai-sdk/provider';
import type { SharedV4ProviderMetadata, SharedV4Warning } from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/workflow';
import { addSpent, NOTHING_SPENT } from '../../policy/index.js';
import type { Budget, RetryPlan, Spent } from '../../policy/index.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import { INVALID_MODEL_CALL_INPUT, MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails, ModelCallInput, ModelCallResult } from '../../common/call.js';
import { base64ToVector, vectorWireBytes } from '../../common/embedding.js';
import { toWire } from '../../common/request.js';
import type { SpentBefore } from '../call/budget-watch.js';
import { backendsOf } from '../../common/call-input/call-input.js';
import { checkEmbeddingChain } from '../../common/call-input/call-embed.js';
import { InvalidModelCallInputError } from '../../common/input-error.js';
import { inputFailure } from '../call/input-failure.js';
import { callModel } from '../call/model-call.js';
import { workerConfig } from '../call/worker-config.js';
import { ownSpent, planOf, runCancellable } from './model-requests.js';
import { modelOf, providerOf } from './result.js';
import type { ModelRetryMetadata } from './result.js';

/** How a durable embedding model's requests run. Plain JSON. */
export interface DurableEmbeddingModelOptions {
  /** The retry plan of every request. Absent: {@link DEFAULT_DURABLE_MODEL_PLAN}, as `durableModel`; `false`: one attempt. */
  retry?: RetryPlan | false;
  /** An absolute deadline (ISO) for every request; not with `deadlineInMs`. */
  deadline?: string;
  /** A deadline in ms from the start of the workflow chain, shared by every request. */
  deadlineInMs?: number;
  /** Time every request leaves to the workflow at the deadline. @default 60000 */
  reserveMs?: number;
  /**
   * What everything this model object asks may spend together (failed attempts included): a request whose next
   * attempt would pass it stops `budget` (`ModelCallFailed`). With a budget, `embedMany` sends its requests one
   * after the other (`supportsParallelCalls: false`), so that each counts what the ones before it spent.
   */
  budget?: Budget;
  /**
   * The most texts one request carries: the model's own limit (OpenAI's 2048, Gemini's 100). `embedMany` splits
   * its values into requests of at most this many (fewer without a payload store, see `dimensions`).
   * @default 2048
   */
  maxEmbeddingsPerCall?: number;
  /**
   * The length of the model's vectors (1536 for `text-embedding-3-small`), for the bound without a payload store:
   * a request then carries no more texts than fit Temporal's 2 MB payload limit as vectors of this length.
   * @default 3072 (the longest of OpenAI's and Gemini's)
   */
  dimensions?: number;
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
  'budget',
  'maxEmbeddingsPerCall',
  'dimensions',
  'tenant',
];

/** OpenAI's limit of texts per request, the default of `maxEmbeddingsPerCall`. */
export const DEFAULT_MAX_EMBEDDINGS_PER_CALL = 2048;
/** The vectors' length assumed when the options give none. */
export const DEFAULT_EMBEDDING_DIMENSIONS = 3072;
/**
 * What an attempt's vectors may take without a payload store: Temporal's 2 MB payload limit, less room for the
 * rest of the result and the call's records (the activity refuses an answer over the limit as `Misconfigured`).
 */
export const VECTORS_ROOM_BYTES = 2 * 1024 * 1024 - 64 * 1024;

/**
 * An AI SDK `EmbeddingModel` (specification v4) for workflow code: every `doEmbed` that `embed` and `embedMany`
 * make is one durable model call (`callModel` with `embed`): its attempts are activities classified by
 * model-retry, its waits durable timers, `model` a chain of backends of one embedding model (`a:m`, `b:m`). The
 * vectors cross Temporal as base64 of Float32 and are decoded here.
 */
export class DurableEmbeddingModel implements EmbeddingModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider: string;
  readonly modelId: string;
  private readonly chain: string[];
  private readonly notBefore: SharedNotBefore = {};
  private spent: SpentBefore | undefined;

  constructor(
    model: string | string[],
    private readonly options: DurableEmbeddingModelOptions = {},
  ) {
    try {
      checkOptions(options);
      this.chain = backendsOf({ model });
      checkEmbeddingChain(this.chain);
    } catch (error) {
      throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
    }
    const first = this.chain[0] as string;
    this.modelId = modelOf(first);
    this.provider = providerOf(first);
  }

  /** The model's own limit, and without a payload store no more vectors than fit Temporal's payload limit. */
  get maxEmbeddingsPerCall(): PromiseLike<number> {
    return this.bound();
  }

  /** Parallel requests, unless a budget must count each before the next. */
  get supportsParallelCalls(): boolean {
    return this.options.budget === undefined;
  }

  async doEmbed(options: EmbeddingModelV4CallOptions): Promise<EmbeddingModelV4Result> {
    const most = await this.bound();
    if (options.values.length > most) {
      const error = new InvalidModelCallInputError(
        'embed.values',
        `${options.values.length} texts are more than one request may carry (${most}: maxEmbeddingsPerCall, ` +
          'and without a payload store what fits 2 MB): use embedMany, which splits them',
      );
      throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
    }
    const headers = Object.entries(options.headers ?? {}).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    );
    const input: ModelCallInput = {
      model: this.chain,
      embed: {
        values: options.values,
        ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {}),
      },
      ...(options.providerOptions !== undefined && Object.keys(options.providerOptions).length > 0
        ? { providerOptions: toWire(options.providerOptions) }
        : {}),
      ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
      retry: this.plan(),
      ...(this.options.budget !== undefined ? { budget: this.options.budget } : {}),
      ...(this.options.tenant !== undefined ? { tenant: this.options.tenant } : {}),
    };
    const before = this.spent;
    try {
      const result = await this.run(input, before, options.abortSignal);
      this.count(result.spent, before);
      return embeddingResult(result);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === MODEL_CALL_FAILED) {
        this.count((error.details?.[0] as ModelCallFailedDetails | undefined)?.spent, before);
      }
      throw error;
    }
  }

  private async bound(): Promise<number> {
    const own = this.options.maxEmbeddingsPerCall ?? DEFAULT_MAX_EMBEDDINGS_PER_CALL;
    const config = await workerConfig();
    if (config?.payloadStore === true) return own;
    const perVector = vectorWireBytes(this.options.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS);
    return Math.max(1, Math.min(own, Math.floor(VECTORS_ROOM_BYTES / perVector)));
  }

  /** The call, cancelled by the AI SDK's abort signal as a host cancel would be (then rejecting with its reason). */
  private async run(
    input: ModelCallInput,
    before: SpentBefore | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ModelCallResult> {
    const callOptions = { notBefore: this.notBefore, ...(before ? { spentBefore: before } : {}) };
    if (signal === undefined) return callModel(input, callOptions);
    return runCancellable(() => callModel(input, callOptions), signal);
  }

  /** Adds a call's own part of its `spent` (it counts from the `before` it was given) to the model object's. */
  private count(spent: Spent | undefined, before: SpentBefore | undefined): void {
    if (spent === undefined) return;
    const own = ownSpent(spent, before?.spent ?? NOTHING_SPENT);
    this.spent = { spent: addSpent(this.spent?.spent ?? NOTHING_SPENT, own), largestOutput: 0 };
  }

  /** The plan of every request (see `planOf`), as `durableModel`'s. */
  private plan(): RetryPlan | false {
    return planOf(this.options);
  }
}

/**
 * A durable embedding model for the AI SDK in workflow code: `embedMany({ model:
 * durableEmbeddingModel(['openai:text-embedding-3-small', 'azure:text-embedding-3-small']), values })`. Every
 * backend of the chain must be the same model. See `DurableEmbeddingModelOptions`.
 */
export function durableEmbeddingModel(
  model: string | string[],
  options: DurableEmbeddingModelOptions = {},
): DurableEmbeddingModel {
  return new DurableEmbeddingModel(model, options);
}

/** The call's answer as `doEmbed` returns it: the vectors decoded, usage in tokens, model-retry's metadata. */
export function embeddingResult(result: ModelCallResult): EmbeddingModelV4Result {
  const { output } = result;
  if (output.embeddings === undefined) throw new TypeError(`call ${result.callId} answered no embeddings`);
  const tokens = result.usage?.inputTokens;
  const metadata: ModelRetryMetadata = {
    callId: result.callId,
    model: result.model,
    backend: result.backend,
    attempts: result.attempts.length,
  };
  const headers = output.response?.headers;
  return {
    embeddings: output.embeddings.map(base64ToVector),
    ...(tokens !== undefined ? { usage: { tokens } } : {}),
    providerMetadata: {
      ...((output.providerMetadata ?? {}) as SharedV4ProviderMetadata),
      modelRetry: metadata,
    },
    ...(headers !== undefined ? { response: { headers } } : {}),
    warnings: (output.warnings ?? []) as SharedV4Warning[],
  };
}

function checkOptions(options: DurableEmbeddingModelOptions): void {
  const unknown = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new InvalidModelCallInputError(
      unknown,
      `not an option of durableEmbeddingModel (known: ${OPTION_KEYS.join(', ')}): remove it or fix its name`,
    );
  }
  for (const key of ['maxEmbeddingsPerCall', 'dimensions'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new InvalidModelCallInputError(key, `must be a positive whole number (got ${String(value)})`);
    }
  }
}
