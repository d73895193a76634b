/** The OpenAI families: any OpenAI-compatible server, and OpenAI's own API on Chat Completions. */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { credentialHeaderValues } from './config.js';
import type { ProviderAdapter } from './types.js';
import { num, rec, usageFromOpenAIRaw } from './usage.js';

export const openaiCompatibleAdapter: ProviderAdapter = {
  languageModel({ name, config, apiKey, baseURL, modelId }) {
    return createOpenAICompatible({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
    }).chatModel(modelId);
  },
  usage: usageFromOpenAIRaw,
  // OpenRouter and some gateways report the billed cost as `usage.cost` (USD).
  cost: (result) => num(rec(result.usage.raw)?.cost),
  secretHeaders: credentialHeaderValues,
};

/**
 * OpenAI's own API through `@ai-sdk/openai`, on its Chat Completions model (`POST {baseURL}/chat/completions`),
 * not the SDK's default Responses model: Chat Completions is what every OpenAI-compatible server, proxy and the
 * loopback provider speak, and its error and usage shapes are the ones the classifier and usage reader know.
 */
export const openaiAdapter: ProviderAdapter = {
  defaults: {
    apiKeyEnv: 'OPENAI_API_KEY',
    baseURLEnv: 'OPENAI_BASE_URL',
    baseURL: 'https://api.openai.com/v1',
  },
  languageModel({ name, config, apiKey, baseURL, modelId }) {
    // baseURL and apiKey are always given for this type, so the SDK never reads process.env itself.
    return createOpenAI({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
    }).chat(modelId);
  },
  usage: usageFromOpenAIRaw,
  secretHeaders: credentialHeaderValues,
};
