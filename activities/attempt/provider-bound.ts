/**
 * What of a request is bound to one provider, held to that provider: in a chain across provider families, a signed
 * thinking block (Anthropic), an encrypted reasoning item (OpenAI Responses) or a thought signature (Gemini) is
 * meaningful only to the provider that made it, and another provider would refuse it or read it as text. Such
 * reasoning carries its provider's metadata as `providerOptions` keyed by the provider (`{ anthropic: { signature
 * } }`); a backend of another provider gets the conversation without it. A file held by reference at one provider
 * (`{ type: 'reference', reference: { openai: 'file-abc' } }`) cannot be sent to another at all.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';

/** The AI SDK's key for each providers-file type's options and metadata, whatever the entry is named. */
const KEY_OF_TYPE: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  'openai-responses': 'openai',
  google: 'google',
};

/**
 * The key a provider's own options and metadata are filed under: fixed by the AI SDK provider (`anthropic` for an
 * entry `claude` of type `anthropic`); an OpenAI-compatible provider's is its own name, and a registered one's
 * the first part of its model's `provider` (`anthropic.messages` -> `anthropic`).
 */
export function providerKeyOf(modelProvider: string, type?: string): string {
  const fixed = type === undefined ? undefined : KEY_OF_TYPE[type];
  return fixed ?? modelProvider.split('.')[0] ?? modelProvider;
}

/** Whether options keyed by provider name some provider, none of them `key`. */
function boundElsewhere(options: Record<string, unknown> | undefined, key: string): boolean {
  if (options === undefined) return false;
  const keys = Object.keys(options);
  return keys.length > 0 && !keys.includes(key);
}

/**
 * The prompt as the provider `key` gets it: reasoning bound to another provider left out. Returns the file
 * reference no other provider can take, when there is one, instead.
 */
export function forProvider(
  prompt: LanguageModelV4Prompt,
  key: string,
): { prompt: LanguageModelV4Prompt } | { unreachable: string } {
  let changed = false;
  const out: LanguageModelV4Prompt = [];
  for (const [i, m] of prompt.entries()) {
    if (m.role === 'system') {
      out.push(m);
      continue;
    }
    for (const [j, part] of m.content.entries()) {
      if (part.type === 'file' && part.data.type === 'reference' && part.data.reference[key] === undefined) {
        return {
          unreachable:
            `prompt[${i}].content[${j}] is a file held by reference at ${Object.keys(part.data.reference).join(', ')}, ` +
            `which a ${key} backend cannot read: send its bytes or a URL instead`,
        };
      }
    }
    if (m.role !== 'assistant') {
      out.push(m);
      continue;
    }
    const content = m.content.filter(
      (part) =>
        !(part.type === 'reasoning' || part.type === 'reasoning-file') ||
        !boundElsewhere(part.providerOptions, key),
    );
    if (content.length !== m.content.length) changed = true;
    out.push(content.length === m.content.length ? m : { ...m, content });
  }
  return { prompt: changed ? out : prompt };
}
