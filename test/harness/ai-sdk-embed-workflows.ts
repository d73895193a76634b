/**
 * The workflows the AI SDK embedding tests run: `embed` and `embedMany` over `durableEmbeddingModel`, bundled
 * with `ModelRetryPlugin` as a user's worker bundles them.
 */
import { embed, embedMany } from 'ai';
import { durableEmbeddingModel } from '../../workflows/ai-sdk/index.js';
import type { DurableEmbeddingModelOptions } from '../../workflows/ai-sdk/index.js';

export interface EmbedInput {
  model: string | string[];
  /** One value: `embed`; more: `embedMany`. */
  values: string[];
  options?: DurableEmbeddingModelOptions;
  /** `embedMany` even for one value. */
  many?: boolean;
  dimensions?: number;
}

export interface EmbedOutput {
  embeddings: number[][];
  /** The AI SDK's `usage.tokens` (NaN, sent as null, when a request reported none). */
  tokens: number | null;
  /** `providerMetadata.modelRetry` of the (last) request. */
  calls: unknown;
  /** How many requests `embedMany` made. */
  responses: number;
  /** What the AI SDK's telemetry names the model by. */
  provider: string;
  modelId: string;
}

/** `embed` (one value) or `embedMany` over a durable embedding model. */
export async function durableEmbedWorkflow(input: EmbedInput): Promise<EmbedOutput> {
  const model = durableEmbeddingModel(input.model, input.options);
  const dimensions = input.dimensions !== undefined ? { dimensions: input.dimensions } : {};
  if (input.values.length === 1 && input.many !== true) {
    const result = await embed({ model, value: input.values[0] as string, ...dimensions });
    return {
      embeddings: [result.embedding],
      tokens: Number.isNaN(result.usage.tokens) ? null : result.usage.tokens,
      calls: result.providerMetadata?.modelRetry,
      responses: 1,
      provider: model.provider,
      modelId: model.modelId,
    };
  }
  const result = await embedMany({ model, values: input.values, ...dimensions });
  return {
    embeddings: result.embeddings,
    tokens: Number.isNaN(result.usage.tokens) ? null : result.usage.tokens,
    calls: result.providerMetadata?.modelRetry,
    responses: result.responses?.length ?? 0,
    provider: model.provider,
    modelId: model.modelId,
  };
}

/** `doEmbed` called directly with every value at once: what it rejected with, if it did. */
export async function durableDoEmbedWorkflow(
  input: EmbedInput,
): Promise<{ count?: number; rejected?: string }> {
  const model = durableEmbeddingModel(input.model, input.options);
  try {
    const result = await model.doEmbed({ values: input.values });
    return { count: result.embeddings.length };
  } catch (error) {
    return { rejected: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
