/**
 * Embedding models of the configured providers (`durableEmbeddingModel`'s attempts): each family's AI SDK provider
 * built as for its language models (same key, base URL, headers and `fetch`), asked for `.embeddingModel(id)`.
 * OpenAI (Chat Completions or Responses types: one API key, one `/embeddings`), any OpenAI-compatible server and
 * Gemini have embedding models; a type without them (`anthropic`) is `Misconfigured` at the attempt, nothing sent.
 */
import { createGoogle } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import type { ProviderType } from './config.js';
import type { ModelSpec } from './types.js';

/** The provider types whose APIs embed texts. */
export const EMBEDDING_TYPES: readonly ProviderType[] = [
  'openai-compatible',
  'openai',
  'openai-responses',
  'google',
];

/** The embedding model `spec` names, or `undefined` when its provider's type has no embedding models. */
export function embeddingModelOf(spec: ModelSpec): EmbeddingModelV4 | undefined {
  const { name, config, apiKey, baseURL, modelId, fetch } = spec;
  const common = {
    name,
    baseURL,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(config.headers === undefined ? {} : { headers: config.headers }),
    fetch,
  };
  switch (config.type) {
    case 'openai-compatible':
      return createOpenAICompatible(common).embeddingModel(modelId);
    case 'openai':
    case 'openai-responses':
      return createOpenAI(common).embeddingModel(modelId);
    case 'google':
      return createGoogle(common).embeddingModel(modelId);
    default:
      return undefined;
  }
}

/** Why a provider of `type` cannot embed: the message of the `Misconfigured` attempt. */
export function noEmbeddings(provider: string, type: string): string {
  return (
    `provider "${provider}" is of type "${type}", which has no embedding models: give durableEmbeddingModel a ` +
    `provider of type ${EMBEDDING_TYPES.map((t) => `"${t}"`).join(', ')}`
  );
}
