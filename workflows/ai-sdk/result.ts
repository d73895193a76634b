/**
 * A model call's result as the AI SDK expects a model's answer, whole: `doGenerate`'s result (the provider's
 * content in order, warnings, finish reason, response metadata, provider metadata and usage), or the parts
 * `doStream` replays once the attempt has ended (its deltas reached outside subscribers as they came).
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { Usage } from '../../common/attempt.js';
import type { CallOutput, ModelCallResult } from '../../common/call.js';
import type { WireContent } from '../../common/request.js';

const UNIFIED = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other']);

/** What the AI SDK's result carries of the call in `providerMetadata.modelRetry` (plain JSON). */
export interface ModelRetryMetadata {
  callId: string;
  /** The backend that answered (`provider:model`) and its index in the chain. */
  model: string;
  backend: number;
  /** The call's chain of backends. */
  chain?: string[];
  /** How many attempts the call made, this answer's included. */
  attempts: number;
  /** Each attempt: its id, backend, outcome and failure class (the whole records are the call's result). */
  tried?: { modelCallId: string; model: string; outcome: string; class?: string }[];
  [key: string]: string | number | string[] | ModelRetryMetadata['tried'];
}

/** The answer as `doGenerate` returns it. */
export function generateResult(
  result: ModelCallResult,
  chain?: readonly string[],
): LanguageModelV4GenerateResult {
  const output = result.output;
  return {
    content: contentOf(output),
    finishReason: finishReasonOf(output),
    usage: usageOf(result.usage),
    providerMetadata: {
      ...((output.providerMetadata ?? {}) as SharedV4ProviderMetadata),
      modelRetry: metadataOf(result, chain),
    },
    response: responseOf(result),
    warnings: (output.warnings ?? []) as SharedV4Warning[],
  };
}

/**
 * The answer as the parts of a stream: its metadata, then every content part in order (text and reasoning each
 * as one start, one delta and one end; a tool call as its input's start, delta and end, then the call; files,
 * sources, tool results as they are), then the finish.
 */
export function streamParts(result: ModelCallResult, chain?: readonly string[]): LanguageModelV4StreamPart[] {
  const answer = generateResult(result, chain);
  const { headers: _headers, ...metadata } = answer.response ?? {};
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: answer.warnings },
    { type: 'response-metadata', ...metadata },
  ];
  answer.content.forEach((c, i) => {
    const meta = c.providerMetadata !== undefined ? { providerMetadata: c.providerMetadata } : {};
    switch (c.type) {
      case 'text': {
        const id = `text-${i}`;
        parts.push({ type: 'text-start', id, ...meta });
        if (c.text !== '') parts.push({ type: 'text-delta', id, delta: c.text });
        parts.push({ type: 'text-end', id, ...meta, ...(c.citations ? { citations: c.citations } : {}) });
        return;
      }
      case 'reasoning': {
        const id = `reasoning-${i}`;
        parts.push({ type: 'reasoning-start', id, ...meta });
        if (c.text !== '') parts.push({ type: 'reasoning-delta', id, delta: c.text });
        parts.push({ type: 'reasoning-end', id, ...meta });
        return;
      }
      case 'tool-call': {
        const id = c.toolCallId;
        parts.push({
          type: 'tool-input-start',
          id,
          toolName: c.toolName,
          ...(c.providerExecuted !== undefined ? { providerExecuted: c.providerExecuted } : {}),
          ...(c.dynamic !== undefined ? { dynamic: c.dynamic } : {}),
          ...meta,
        });
        if (c.input !== '') parts.push({ type: 'tool-input-delta', id, delta: c.input });
        parts.push({ type: 'tool-input-end', id }, c);
        return;
      }
      default:
        parts.push(c);
    }
  });
  parts.push({
    type: 'finish',
    finishReason: answer.finishReason,
    usage: answer.usage,
    ...(answer.providerMetadata ? { providerMetadata: answer.providerMetadata } : {}),
  });
  return parts;
}

/**
 * The provider's content in order, decoded (a file's URL a `URL` again; file bytes stay a base64 string, which
 * the specification takes). A structured answer's text is the object model-retry validated, not the raw text (which
 * a provider asked through instructions may have wrapped in a code fence the AI SDK's own parser would refuse).
 * A result without `content` (a streamed attempt, an older history) gives its text and tool calls.
 */
export function contentOf(output: CallOutput): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] =
    output.content !== undefined
      ? output.content.map(fromWireContent)
      : [
          ...(output.text !== '' ? [{ type: 'text' as const, text: output.text }] : []),
          ...output.toolCalls.map((call): LanguageModelV4Content => ({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ];
  if (output.object === undefined) return content;
  const json: LanguageModelV4Content = { type: 'text', text: JSON.stringify(output.object) };
  const first = content.findIndex((c) => c.type === 'text');
  const rest = content.filter((c) => c.type !== 'text');
  if (first < 0) return [...rest, json];
  // The object stands where the answer's text began; the other parts (reasoning, ...) keep their order.
  const before = content.slice(0, first).filter((c) => c.type !== 'text').length;
  return [...rest.slice(0, before), json, ...rest.slice(before)];
}

/** One part of an answer's content from its wire form: URLs of files as `URL`s, everything else as it is. */
export function fromWireContent(part: WireContent): LanguageModelV4Content {
  if ((part.type === 'file' || part.type === 'reasoning-file') && part.data.type === 'url') {
    return { ...part, data: { ...part.data, url: new URL(part.data.url) } } as LanguageModelV4Content;
  }
  return part as LanguageModelV4Content;
}

function finishReasonOf(output: CallOutput): LanguageModelV4FinishReason {
  const given = output.finishReason;
  const unified = (UNIFIED.has(given) ? given : 'other') as LanguageModelV4FinishReason['unified'];
  return { unified, raw: output.rawFinishReason };
}

/** The response's metadata: the provider's id, model id (else the answering backend's model), time and headers. */
function responseOf(result: ModelCallResult): NonNullable<LanguageModelV4GenerateResult['response']> {
  const r = result.output.response;
  const id = r?.id ?? result.responseId;
  const timestamp = r?.timestamp !== undefined ? new Date(r.timestamp) : undefined;
  return {
    ...(id !== undefined ? { id } : {}),
    modelId: r?.modelId ?? modelOf(result.model),
    ...(timestamp !== undefined && !Number.isNaN(timestamp.getTime()) ? { timestamp } : {}),
    ...(r?.headers !== undefined ? { headers: r.headers } : {}),
  };
}

/** The model of a backend name without its provider (`openai:gpt-4o-mini` -> `gpt-4o-mini`). */
export function modelOf(backend: string): string {
  const colon = backend.indexOf(':');
  return colon < 0 ? backend : backend.slice(colon + 1);
}

/** The provider of a backend name (`openai:gpt-4o-mini` -> `openai`). */
export function providerOf(backend: string): string {
  const colon = backend.indexOf(':');
  return colon < 0 ? backend : backend.slice(0, colon);
}

function metadataOf(result: ModelCallResult, chain?: readonly string[]): ModelRetryMetadata {
  return {
    callId: result.callId,
    model: result.model,
    backend: result.backend,
    ...(chain ? { chain: [...chain] } : {}),
    attempts: result.attempts.length,
    tried: result.attempts.map((r) => ({
      modelCallId: r.modelCallId,
      model: r.model,
      outcome: r.outcome,
      ...(r.failure ? { class: r.failure.class } : {}),
    })),
  };
}

/**
 * Our usage as the AI SDK's: what the provider did not report stays `undefined`, never 0. `inputTokens` counts
 * every input token (cache reads and writes included), so the uncached part is what remains of it.
 */
export function usageOf(usage: Usage | undefined): LanguageModelV4Usage {
  const u = usage ?? {};
  const cacheRead = u.cachedInputTokens;
  const cacheWrite = u.cacheWriteInputTokens;
  const reasoning = u.reasoningTokens;
  const cached = cacheRead !== undefined || cacheWrite !== undefined;
  return {
    inputTokens: {
      total: u.inputTokens,
      noCache:
        u.inputTokens !== undefined && cached
          ? u.inputTokens - (cacheRead ?? 0) - (cacheWrite ?? 0)
          : undefined,
      cacheRead,
      cacheWrite,
    },
    outputTokens: {
      total: u.outputTokens,
      text: u.outputTokens !== undefined && reasoning !== undefined ? u.outputTokens - reasoning : undefined,
      reasoning,
    },
  };
}
