/**
 * An embedding call's input (`ModelCallInput.embed`), checked: the texts to embed and nothing of a conversation,
 * a chain of backends of one embedding model, and the request every attempt sends (`prompt: []`, `embed`).
 */
import type { ModelCallInput } from '../call.js';
import { REQUEST_SPEC } from '../request.js';
import type { WireEmbed, WireRequest } from '../request.js';
import { checkHeaders, checkProviderOptions, checkUrlUserinfo } from '../request-secrets.js';
import type { AllowHeaders } from '../request-secrets.js';
import { budgetProblems } from '../../policy/index.js';
import { InvalidModelCallInputError } from '../input-error.js';

/** The fields of a call that an embedding call may not carry: each belongs to a conversation. */
export const NOT_WITH_EMBED = [
  'prompt',
  'system',
  'messages',
  'tools',
  'toolChoice',
  'settings',
  'responseFormat',
  'output',
  'stream',
] as const satisfies readonly (keyof ModelCallInput)[];

const EMBED_KEYS: readonly string[] = ['values', 'dimensions'];

/** The model of a backend name without its provider (`a:text-embedding-3-small` -> `text-embedding-3-small`). */
function modelIdOf(backend: string): string {
  return backend.slice(backend.indexOf(':') + 1);
}

/**
 * Refuses a chain whose backends are not all the same embedding model (vectors of two models do not mix): the
 * first backend whose model differs from the first backend's is named.
 */
export function checkEmbeddingChain(backends: readonly string[], at = 'model'): void {
  const first = backends[0];
  if (first === undefined) return;
  const model = modelIdOf(first);
  backends.forEach((backend, i) => {
    if (modelIdOf(backend) !== model) {
      throw new InvalidModelCallInputError(
        `${at}[${i}]`,
        `"${backend}" is not the model of "${first}": an embedding chain may hold only backends of the same ` +
          `model (\`a:${model}\`, \`b:${model}\`), since the vectors of two models do not mix`,
      );
    }
  });
}

/** `embed`, checked: `values` a non-empty list of non-empty strings, `dimensions` a positive whole number. */
export function checkEmbed(embed: unknown): WireEmbed {
  if (typeof embed !== 'object' || embed === null || Array.isArray(embed)) {
    throw new InvalidModelCallInputError('embed', 'must be `{ values: string[], dimensions? }`');
  }
  for (const key of Object.keys(embed)) {
    if (!EMBED_KEYS.includes(key)) {
      throw new InvalidModelCallInputError(
        `embed.${key}`,
        `unknown field; the fields are ${EMBED_KEYS.join(', ')}`,
      );
    }
  }
  const { values, dimensions } = embed as Record<string, unknown>;
  if (!Array.isArray(values) || values.length === 0) {
    throw new InvalidModelCallInputError('embed.values', 'must be a non-empty array of the texts to embed');
  }
  values.forEach((value, i) => {
    if (typeof value !== 'string' || value === '') {
      throw new InvalidModelCallInputError(
        `embed.values[${i}]`,
        typeof value === 'string' ? 'is empty: give the text to embed' : 'must be a string',
      );
    }
  });
  if (
    dimensions !== undefined &&
    (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1)
  ) {
    throw new InvalidModelCallInputError(
      'embed.dimensions',
      `must be a positive whole number (got ${String(dimensions)})`,
    );
  }
  return { values: [...(values as string[])], ...(dimensions !== undefined ? { dimensions } : {}) };
}

/** An embedding call's request, checked (the call's `backends` are checked already). */
export function embedRequest(
  call: ModelCallInput,
  backends: readonly string[],
  allowHeaders: AllowHeaders = [],
): WireRequest {
  for (const field of NOT_WITH_EMBED) {
    if (call[field] !== undefined) {
      throw new InvalidModelCallInputError(
        field,
        'not with `embed`: an embedding call sends its texts only (make a model call for a conversation)',
      );
    }
  }
  const embed = checkEmbed(call.embed);
  checkEmbeddingChain(backends, 'model');
  const problem = budgetProblems(call.budget, 'budget')[0];
  if (problem) throw new InvalidModelCallInputError(problem.field, problem.message);
  checkHeaders(call.headers, allowHeaders);
  checkProviderOptions(call.providerOptions);
  if (
    call.providerOptions !== undefined &&
    (typeof call.providerOptions !== 'object' ||
      call.providerOptions === null ||
      Array.isArray(call.providerOptions))
  ) {
    throw new InvalidModelCallInputError(
      'providerOptions',
      'must be an object keyed by provider (`{ openai: { ... } }`)',
    );
  }
  checkUrlUserinfo(call.headers, 'headers');
  checkUrlUserinfo(embed.values, 'embed.values', 'text');
  return {
    spec: REQUEST_SPEC,
    prompt: [],
    embed,
    ...(call.providerOptions !== undefined ? { providerOptions: call.providerOptions } : {}),
    ...(call.headers !== undefined && Object.keys(call.headers).length > 0 ? { headers: call.headers } : {}),
  };
}
