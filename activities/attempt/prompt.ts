/**
 * The attempt's request in the AI SDK's language model format (spec v4), decoded from its wire form: URLs become
 * `URL`s again; base64 file data stays a base64 string (which the specification takes as it is). Nothing else
 * changes: the provider gets the options the caller gave.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { WireMessage, WireRequest } from '../../common/request.js';

/** The request's call options, without the abort signal and headers the attempt adds. */
export function decodeRequest(request: WireRequest): Omit<LanguageModelV4CallOptions, 'abortSignal'> {
  const { spec: _spec, prompt, ...rest } = request;
  return { ...(rest as Omit<LanguageModelV4CallOptions, 'prompt'>), prompt: toPrompt(prompt) };
}

/** Messages in the AI SDK's prompt format: every URL of a file part as a `URL`. */
export function toPrompt(messages: readonly WireMessage[]): LanguageModelV4Prompt {
  return messages.map((m) =>
    hasUrl(m) ? (withUrls(m) as LanguageModelV4Prompt[number]) : m,
  ) as LanguageModelV4Prompt;
}

function hasUrl(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasUrl);
  const o = value as Record<string, unknown>;
  if (o.type === 'url' && typeof o.url === 'string') return true;
  return Object.entries(o).some(([k, v]) => k !== 'providerOptions' && k !== 'input' && hasUrl(v));
}

function withUrls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withUrls);
  const o = value as Record<string, unknown>;
  if (o.type === 'url' && typeof o.url === 'string') return { ...o, url: new URL(o.url) };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = k === 'providerOptions' || k === 'input' ? v : withUrls(v);
  return out;
}

/**
 * The texts of a request (its text and reasoning parts, system prompts, tool results, the texts it embeds), which
 * no failure message may repeat.
 */
export function requestTexts(request: WireRequest): string[] {
  const out: string[] = [...(request.embed?.values ?? [])];
  for (const m of request.prompt) {
    if (m.role === 'system') {
      out.push(m.content);
      continue;
    }
    for (const part of m.content) {
      if (part.type === 'text' || part.type === 'reasoning') out.push(part.text);
      else if (
        part.type === 'tool-result' &&
        (part.output.type === 'text' || part.output.type === 'error-text')
      )
        out.push(part.output.value);
    }
  }
  return out;
}
