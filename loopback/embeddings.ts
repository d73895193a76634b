/**
 * Embeddings on the loopback provider: OpenAI's `POST /v1/embeddings` (what OpenAI-compatible servers speak) and
 * Gemini's `POST /v1beta/models/<model>:embedContent` / `:batchEmbedContents`. Scripted like the chat answers: an
 * `ok` step answers every text of the request with its vector ({@link loopbackEmbedding}, `usage.inputTokens`
 * as the token count), and the faults (an error status, `hang`, `drop`, `cut`, `malformed`, `delayMs`) apply as
 * they do to chat requests, in each API's own error format.
 */
import { googleFormat } from './google.js';
import { openaiFormat } from './openai.js';
import type { ProviderFormat } from './format.js';
import type { OkStep } from './steps.js';

/** The vectors' length when the request asks for none. */
export const LOOPBACK_EMBEDDING_DIMENSIONS = 8;

/**
 * The loopback provider's vector of `text`: `dimensions` numbers in [-1, 1), each a multiple of 1/1024 (exact as
 * a 32-bit float, so a test may compare what arrives with `toEqual`), derived from the text alone.
 */
export function loopbackEmbedding(text: string, dimensions = LOOPBACK_EMBEDDING_DIMENSIONS): number[] {
  const out: number[] = [];
  for (let i = 0; i < dimensions; i += 1) out.push(((fnv1a(`${i}:${text}`) % 2048) - 1024) / 1024);
  return out;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Where an embedding request goes: OpenAI's path, or Gemini's (which names the model). */
export function embeddingRoute(
  path: string,
): { api: 'openai' } | { api: 'google'; model: string; batch: boolean } | undefined {
  if (path === '/v1/embeddings') return { api: 'openai' };
  const match = /^\/v1beta\/models\/(.+):(embedContent|batchEmbedContents)$/.exec(path);
  if (match?.[1] === undefined) return undefined;
  return { api: 'google', model: decodeURIComponent(match[1]), batch: match[2] === 'batchEmbedContents' };
}

/** The format that answers the embedding request `body` sent to `path`, or `undefined` for another path. */
export function embeddingFormatOf(path: string, body: unknown): ProviderFormat | undefined {
  const route = embeddingRoute(path);
  if (route === undefined) return undefined;
  if (route.api === 'openai') {
    const b = rec(body);
    const input = b?.input;
    const texts = Array.isArray(input) ? input.map(String) : typeof input === 'string' ? [input] : [];
    return openaiEmbeddings(texts, dimensionsOf(b?.dimensions));
  }
  const b = rec(body);
  const requests = route.batch ? (Array.isArray(b?.requests) ? b.requests.map(rec) : []) : [b];
  const texts = requests.map((r) => textOfContent(r?.content));
  return googleEmbeddings(texts, dimensionsOf(requests[0]?.outputDimensionality), route.batch);
}

function openaiEmbeddings(texts: string[], dimensions: number): ProviderFormat {
  return {
    ...openaiFormat,
    success(step, ctx) {
      const tokens = tokensOf(step, texts);
      return {
        object: 'list',
        data: texts.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: loopbackEmbedding(text, dimensions),
        })),
        model: ctx.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      };
    },
    stream: () => [],
    wrongShape: () => ({ object: 'list', note: 'loopback provider: malformed on purpose (no data)' }),
  };
}

function googleEmbeddings(texts: string[], dimensions: number, batch: boolean): ProviderFormat {
  return {
    ...googleFormat,
    success() {
      const vectors = texts.map((text) => ({ values: loopbackEmbedding(text, dimensions) }));
      return batch ? { embeddings: vectors } : { embedding: vectors[0] };
    },
    stream: () => [],
    wrongShape: () => ({ note: 'loopback provider: malformed on purpose (no embedding)' }),
  };
}

/** The step's `usage.inputTokens`, else about a token per four characters of every text. */
function tokensOf(step: OkStep, texts: readonly string[]): number {
  return step.usage?.inputTokens ?? texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0);
}

function dimensionsOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? value
    : LOOPBACK_EMBEDDING_DIMENSIONS;
}

function textOfContent(content: unknown): string {
  const parts = rec(content)?.parts;
  if (!Array.isArray(parts)) return '';
  return parts.map((p) => (typeof rec(p)?.text === 'string' ? (rec(p)?.text as string) : '')).join('');
}

function rec(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
