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

/** Messages in the AI SDK's prompt format: the URL of every file part (also inside tool results) as a `URL`. */
export function toPrompt(messages: readonly WireMessage[]): LanguageModelV4Prompt {
  return messages.map((m) => {
    if (m.role === 'system' || !m.content.some(holdsUrl)) return m;
    return { ...m, content: m.content.map(withUrl) };
  }) as LanguageModelV4Prompt;
}

type WirePart = Exclude<WireMessage, { role: 'system' }>['content'][number];

/** A file's data that is a URL in wire form. */
function isUrlData(data: unknown): data is { type: 'url'; url: string } {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { type?: unknown }).type === 'url' &&
    typeof (data as { url?: unknown }).url === 'string'
  );
}

function holdsUrl(part: WirePart): boolean {
  if (part.type === 'file' || part.type === 'reasoning-file') return isUrlData(part.data);
  if (part.type === 'tool-result' && part.output.type === 'content')
    return part.output.value.some((c) => c.type === 'file' && isUrlData(c.data));
  return false;
}

/** The part with its file's URL as a `URL`; a tool's own JSON (`json` output, tool-call input) is left alone. */
function withUrl(part: WirePart): unknown {
  if ((part.type === 'file' || part.type === 'reasoning-file') && isUrlData(part.data))
    return { ...part, data: { ...part.data, url: new URL(part.data.url) } };
  if (part.type === 'tool-result' && part.output.type === 'content') {
    const value = part.output.value.map((c) =>
      c.type === 'file' && isUrlData(c.data) ? { ...c, data: { ...c.data, url: new URL(c.data.url) } } : c,
    );
    return { ...part, output: { ...part.output, value } };
  }
  return part;
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
