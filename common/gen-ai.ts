/**
 * The OpenTelemetry GenAI conventions' well-known `gen_ai.provider.name` for each providers-file type, e.g.
 * `openai`, `anthropic`, `gcp.gemini` (Gemini's API: the `google` type). `openai-compatible` speaks OpenAI's wire
 * format: `openai` (unless its host says otherwise, see `activities/providers/gen-ai-provider.ts`).
 */
export const GEN_AI_PROVIDER_NAMES: Readonly<Record<string, string>> = Object.freeze({
  openai: 'openai',
  'openai-responses': 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
});
