/**
 * The OpenTelemetry GenAI conventions' well-known `gen_ai.provider.name` for each providers-file type, e.g.
 * `openai`, `anthropic`, `gcp.gemini` (Gemini's API: the `google` type). `openai-compatible` has none: it may be
 * any server speaking OpenAI's format, so its spans carry only model-retry's own `model_retry.provider`.
 */
export const GEN_AI_PROVIDER_NAMES: Readonly<Record<string, string>> = Object.freeze({
  openai: 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
});
