/**
 * The OpenTelemetry GenAI conventions' `gen_ai.provider.name` of each provider the worker knows: Required on the
 * spans, and where one of the conventions' well-known values applies that value MUST be used, else a custom value
 * MAY be. It is the instrumentation's best knowledge (the conventions say so: many services speak OpenAI's format),
 * and it selects the telemetry "flavour" of the span (`openai.*` attributes go with `openai`). So:
 *
 * - a providers-file type names its own (`openai`, `anthropic`, `gcp.gemini`); `openai-compatible` speaks OpenAI's
 *   wire format, so `openai`, unless its `baseURL` is a known service's own host (`api.groq.com` -> `groq`);
 * - a registered AI SDK provider is named by its model's `provider` string (`mistral.chat`), mapped to the
 *   well-known value where one applies (`mistral_ai`), else that string as it is.
 *
 * model-retry's own name for the provider stays in `model_retry.provider`.
 */
import { GEN_AI_PROVIDER_NAMES } from '../../common/gen-ai.js';
import type { ProviderConfig } from './config.js';
import type { AiSdkProviderRegistration } from './registered.js';
import type { Env } from './registry.js';

/** The first segment of an AI SDK `provider` string (`mistral` of `mistral.chat`) -> the well-known value. */
const AI_SDK_PREFIXES: Readonly<Record<string, string>> = Object.freeze({
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  'amazon-bedrock': 'aws.bedrock',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  mistral: 'mistral_ai',
  groq: 'groq',
  xai: 'x_ai',
  deepseek: 'deepseek',
  perplexity: 'perplexity',
  cohere: 'cohere',
});

/** Hosts of services with a well-known value (a host or a subdomain of it). */
const HOSTS: ReadonlyArray<readonly [string, string]> = [
  ['api.openai.com', 'openai'],
  ['openai.azure.com', 'azure.ai.openai'],
  ['api.anthropic.com', 'anthropic'],
  ['generativelanguage.googleapis.com', 'gcp.gemini'],
  ['aiplatform.googleapis.com', 'gcp.vertex_ai'],
  ['api.groq.com', 'groq'],
  ['api.x.ai', 'x_ai'],
  ['api.deepseek.com', 'deepseek'],
  ['api.mistral.ai', 'mistral_ai'],
  ['api.perplexity.ai', 'perplexity'],
  ['api.cohere.ai', 'cohere'],
  ['api.cohere.com', 'cohere'],
];

/** The well-known value for an AI SDK model's `provider` string, else the string itself. */
export function genAiProviderOfAiSdk(provider: string): string {
  const lower = provider.toLowerCase();
  if (lower.startsWith('google.vertex')) return 'gcp.vertex_ai';
  const first = lower.split('.')[0] ?? lower;
  return Object.hasOwn(AI_SDK_PREFIXES, first) ? (AI_SDK_PREFIXES[first] as string) : provider;
}

/** The well-known value of the service at `baseURL`, when its host is one of theirs. */
export function genAiProviderOfHost(baseURL: string | undefined): string | undefined {
  if (baseURL === undefined || !URL.canParse(baseURL)) return undefined;
  const host = new URL(baseURL).hostname.toLowerCase();
  return HOSTS.find(([known]) => host === known || host.endsWith(`.${known}`))?.[1];
}

/** The value for a providers-file (or built-in) provider. */
export function genAiProviderOfConfig(config: ProviderConfig): string {
  const fromHost = genAiProviderOfHost(config.baseURL);
  if (fromHost !== undefined) return fromHost;
  return GEN_AI_PROVIDER_NAMES[config.type] ?? 'openai';
}

/**
 * The value for a registered AI SDK provider: the `provider` string of a model it makes now (the AI SDK names it
 * per provider and API, not per model, so any model id serves). When `create` cannot make one here (a variable it
 * reads is unset at start), the registration's own name, mapped the same way.
 */
export function genAiProviderOfRegistration(
  name: string,
  registration: AiSdkProviderRegistration,
  env: Env,
  fetch: typeof globalThis.fetch,
): string {
  try {
    const model = registration.create(env, { fetch }).languageModel('model-retry-provider-name') as {
      provider?: unknown;
    };
    if (typeof model?.provider === 'string' && model.provider !== '')
      return genAiProviderOfAiSdk(model.provider);
  } catch {
    // Not fatal: the name is a label for spans; the request itself reports the real problem.
  }
  return genAiProviderOfAiSdk(name);
}
