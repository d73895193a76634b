/**
 * Settings per model in a provider's entry of the providers file (`"models": { "<model>": { ... } }`), checked
 * with the file; a model's `pricing`, which a call's cost budget counts, its `limits`, whether a cut stream is
 * continued with a `prefill`, and its output limit (`maxOutputTokens`).
 */
import { pricingProblems } from '../../policy/index.js';
import type { Pricing } from '../../policy/index.js';
import type { BackendLimits } from '../../common/limits.js';
import { checkLimits } from './limits.js';

/** One model's settings in a provider's entry: `"models": { "fast": { "pricing": { ... } } }`. */
export interface ModelConfig {
  /** USD per million tokens: what a call's cost budget counts when the provider reports no cost. */
  pricing?: Pricing;
  /** Limits of this backend alone (`provider:model`); its provider's hold for it too (both hold). */
  limits?: BackendLimits;
  /**
   * The model takes the start of its answer as a final assistant message (a prefill) and goes on from there: a cut
   * stream is continued that way, except with extended thinking (see `activities/attempt/continuation.ts`). Off by
   * default: newer Anthropic models refuse prefills (a 400, after which the attempt asks once with an instruction
   * instead). Only for provider types whose API has prefill semantics (`anthropic`, `openai-compatible`).
   * @default false
   */
  prefill?: boolean;
  /**
   * The most tokens the model answers with (its output limit): what an attempt without its own `maxOutputTokens`
   * reserves against its tenant's token or cost envelope. A call of a tenant under an envelope needs one or the
   * other for each of its models, else it is refused at start. Give the limit the provider documents: with a lower
   * one, an answer can bill past its reservation (counted and reported as over-billing).
   */
  maxOutputTokens?: number;
}

/**
 * The provider types whose API continues a final assistant message: Anthropic's messages API, and the
 * OpenAI-compatible servers that do (vLLM's `continue_final_message`, llama.cpp, DeepSeek's prefix completion).
 * OpenAI's own APIs and Gemini answer a final assistant message with a new turn, so a prefill there is refused.
 */
export const PREFILL_TYPES: readonly string[] = ['anthropic', 'openai-compatible'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MODEL_FIELDS = ['pricing', 'limits', 'prefill', 'maxOutputTokens'];

/** `models`: model name -> `{ pricing, limits, prefill, maxOutputTokens }`, each checked; `type` is the provider's type. */
export function checkModels(value: unknown, at: string, type: string): string[] {
  if (value === undefined) return [];
  const example = '{ "fast": { "pricing": { "inputPerMTok": 0.15, "outputPerMTok": 0.6 } } }';
  if (!isRecord(value)) return [`\`${at}\` must be an object of model names to settings, like ${example}`];
  return Object.entries(value).flatMap(([model, entry]) => {
    const here = `${at}.${model}`;
    if (model.trim() === '')
      return [`\`${at}\` has an empty model name: name the model as in "provider:model"`];
    if (!isRecord(entry))
      return [`\`${here}\` must be an object, like { "pricing": { ... }, "limits": { ... } }`];
    const unknown = Object.keys(entry)
      .filter((key) => !MODEL_FIELDS.includes(key))
      .map((key) => `\`${here}.${key}\` is not a known field of a model (known: ${MODEL_FIELDS.join(', ')})`);
    const pricing = entry.pricing === undefined ? [] : pricingProblems(entry.pricing, `${here}.pricing`);
    return [
      ...unknown,
      ...pricing.map((p) => `\`${p.field}\` ${p.message}`),
      ...checkLimits(entry.limits, `${here}.limits`),
      ...checkPrefill(entry.prefill, `${here}.prefill`, type),
      ...checkMaxOutputTokens(entry.maxOutputTokens, `${here}.maxOutputTokens`),
    ];
  });
}

function checkPrefill(value: unknown, at: string, type: string): string[] {
  if (value === undefined) return [];
  if (typeof value !== 'boolean') return [`\`${at}\` must be true or false, not ${JSON.stringify(value)}`];
  if (value && !PREFILL_TYPES.includes(type)) {
    return [
      `\`${at}\` is not possible on provider type "${type}": its API does not continue a final assistant message ` +
        `(prefills work on ${PREFILL_TYPES.map((t) => `"${t}"`).join(' and ')} providers); remove it, a cut ` +
        'stream is continued there with an instruction',
    ];
  }
  return [];
}

function checkMaxOutputTokens(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return [];
  return [
    `\`${at}\` must be a whole number of tokens, 1 or more: the model's output limit as its provider documents ` +
      `it, like 8192 (got ${JSON.stringify(value) ?? String(value)})`,
  ];
}

/** Every model's `pricing` in a providers config, by `provider:model`. */
export function pricingOf(
  config: Readonly<Record<string, { models?: Record<string, ModelConfig> }>>,
): Record<string, Pricing> {
  const out: Record<string, Pricing> = {};
  for (const [provider, entry] of Object.entries(config)) {
    for (const [model, settings] of Object.entries(entry.models ?? {})) {
      if (settings.pricing) out[`${provider}:${model}`] = settings.pricing;
    }
  }
  return out;
}

/** Every model's output limit (`maxOutputTokens`) in a providers config, by `provider:model`. */
export function outputLimitsOf(
  config: Readonly<Record<string, { models?: Record<string, ModelConfig> }>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [provider, entry] of Object.entries(config)) {
    for (const [model, settings] of Object.entries(entry.models ?? {})) {
      if (settings.maxOutputTokens !== undefined) out[`${provider}:${model}`] = settings.maxOutputTokens;
    }
  }
  return out;
}
