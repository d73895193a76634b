/**
 * What a request holds that only one provider can take, checked against a call's chain before its first attempt:
 * a provider-defined tool (`anthropic.web_search_20250305` runs at Anthropic) and a file held by reference at a
 * provider (`{ openai: 'file-abc' }`). A backend of the chain whose provider cannot take it would fail every time,
 * so the call is refused, naming the field and the backend. (Signed reasoning is not refused: each backend gets the
 * conversation without the reasoning of other providers; see the attempt's `provider-bound.ts`.)
 */
import type { WireRequest } from './request.js';

/**
 * The first thing of `request` a backend of `backends` cannot take, by the AI SDK key of each backend's provider
 * (`keys`: provider name -> key, from the worker; a provider without a known key is not checked).
 */
export function providerBoundProblem(
  request: Pick<WireRequest, 'prompt' | 'tools'>,
  backends: readonly string[],
  keys: Readonly<Record<string, string>> | undefined,
): { field: string; message: string } | undefined {
  if (keys === undefined) return undefined;
  const known = backends.flatMap((model, index) => {
    const key = keys[model.slice(0, model.indexOf(':'))];
    return key === undefined ? [] : [{ model, index, key }];
  });
  if (known.length === 0) return undefined;
  for (const [i, tool] of (request.tools ?? []).entries()) {
    if (tool.type !== 'provider') continue;
    const owner = tool.id.slice(0, tool.id.indexOf('.'));
    const other = known.find((b) => b.key !== owner);
    if (other) {
      return {
        field: `tools[${i}]`,
        message:
          `is ${owner}'s provider-defined tool \`${tool.id}\`, which backend ${other.index} (${other.model}) cannot ` +
          'run: keep the chain to that provider, or give a function tool instead',
      };
    }
  }
  for (const [i, m] of request.prompt.entries()) {
    if (m.role === 'system') continue;
    for (const [j, part] of m.content.entries()) {
      if (part.type !== 'file' || part.data.type !== 'reference') continue;
      const reference = part.data.reference;
      const other = known.find((b) => reference[b.key] === undefined);
      if (other) {
        return {
          field: `prompt[${i}].content[${j}]`,
          message:
            `is a file held by reference at ${Object.keys(reference).join(', ')}, which backend ${other.index} ` +
            `(${other.model}) cannot read: send its bytes or a URL, or give a reference for that provider too`,
        };
      }
    }
  }
  return undefined;
}
