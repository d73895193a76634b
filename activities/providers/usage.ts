/**
 * Usage as each provider reported it. The AI SDK normalises usage and turns a count the provider left out
 * into 0; the contract says an unreported count is absent, never 0, so the readers here read the raw usage
 * object of the response (`result.usage.raw`) and fall back to the SDK's fields only when there is none.
 *
 * Across providers, `inputTokens` is every input token the model read (cached ones included) and
 * `cachedInputTokens` the part of it read from the provider's prompt cache, as OpenAI reports them.
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Usage } from '../../common/attempt.js';

/** A finite number, else `undefined`. */
export const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** A plain object, else `undefined`. */
export const rec = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const sum = (a: number | undefined, b: number | undefined): number | undefined =>
  a !== undefined && b !== undefined ? a + b : undefined;

/** Drops absent fields; `undefined` when nothing was reported. */
export function compactUsage(usage: Usage): Usage | undefined {
  const entries = Object.entries(usage).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as Usage);
}

/** Usage from the AI SDK's normalised fields: a field the SDK left `undefined` stays absent. */
export function usageFromSdk(result: LanguageModelV4GenerateResult): Usage | undefined {
  const { inputTokens, outputTokens } = result.usage;
  const input = num(inputTokens.total);
  const output = num(outputTokens.total);
  return compactUsage({
    inputTokens: input,
    outputTokens: output,
    totalTokens: sum(input, output),
    cachedInputTokens: num(inputTokens.cacheRead),
    cacheWriteInputTokens: num(inputTokens.cacheWrite),
    reasoningTokens: num(outputTokens.reasoning),
  });
}

/**
 * OpenAI-style usage from the raw body (`prompt_tokens`, `completion_tokens`, `total_tokens`,
 * `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`): OpenAI's own API and
 * OpenAI-compatible servers.
 */
export function usageFromOpenAIRaw(result: LanguageModelV4GenerateResult): Usage | undefined {
  const raw = rec(result.usage.raw);
  if (raw === undefined) return usageFromSdk(result);
  return compactUsage({
    inputTokens: num(raw.prompt_tokens),
    outputTokens: num(raw.completion_tokens),
    totalTokens: num(raw.total_tokens),
    cachedInputTokens: num(rec(raw.prompt_tokens_details)?.cached_tokens),
    reasoningTokens: num(rec(raw.completion_tokens_details)?.reasoning_tokens),
  });
}

/**
 * Anthropic usage from the raw body. Anthropic's `input_tokens` counts only the input read neither from nor
 * into the prompt cache, so `inputTokens` = `input_tokens` + `cache_creation_input_tokens` +
 * `cache_read_input_tokens` (each when reported), and `cachedInputTokens` = `cache_read_input_tokens`.
 * Anthropic reports no total: `totalTokens` is input + output when both are known. `reasoningTokens` is
 * `output_tokens_details.thinking_tokens` when reported.
 */
export function usageFromAnthropicRaw(result: LanguageModelV4GenerateResult): Usage | undefined {
  const raw = rec(result.usage.raw);
  if (raw === undefined) return usageFromSdk(result);
  const uncached = num(raw.input_tokens);
  const cacheRead = num(raw.cache_read_input_tokens);
  const cacheWrite = num(raw.cache_creation_input_tokens);
  const input = uncached === undefined ? undefined : uncached + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const output = num(raw.output_tokens);
  return compactUsage({
    inputTokens: input,
    outputTokens: output,
    totalTokens: sum(input, output),
    cachedInputTokens: cacheRead,
    reasoningTokens: num(rec(raw.output_tokens_details)?.thinking_tokens),
  });
}
