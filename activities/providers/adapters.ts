/**
 * The adapter of every provider type. Adding a provider family is a file beside this one (its adapter and
 * error reading), a config type in `config.ts`, and a row here.
 */
import type { ProviderType } from './config.js';
import { anthropicAdapter } from './anthropic.js';
import { googleAdapter } from './google.js';
import { openaiAdapter, openaiCompatibleAdapter } from './openai.js';
import { openaiResponsesAdapter } from './openai-responses.js';
import type { ProviderAdapter } from './types.js';

export type {
  JsonSchemaMode,
  ModelSpec,
  ProviderAdapter,
  ProviderDefaults,
  ResponseReader,
} from './types.js';

/** The adapter of every provider type. */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderType, ProviderAdapter>> = {
  'openai-compatible': openaiCompatibleAdapter,
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  google: googleAdapter,
  'openai-responses': openaiResponsesAdapter,
};
