/**
 * A model call's result as the AI SDK expects a model's answer: `doGenerate`'s result, or the parts `doStream`
 * replays once the attempt has ended (its deltas reached outside subscribers as they came).
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { Usage } from '../../common/attempt.js';
import type { ModelCallResult } from '../../common/call.js';

const UNIFIED = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other']);

/** What the AI SDK's result carries of the call in `providerMetadata.modelRetry` (plain JSON). */
export interface ModelRetryMetadata {
  callId: string;
  /** The backend that answered (`provider:model`) and its index in the chain. */
  model: string;
  backend: number;
  /** How many attempts the call made, this answer's included. */
  attempts: number;
  [key: string]: string | number;
}

/** The answer as `doGenerate` returns it. */
export function generateResult(result: ModelCallResult): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  // A structured answer goes back as the object model-retry validated, not the raw text (which a provider asked
  // through instructions may have wrapped in a code fence the AI SDK's own parser would refuse).
  const text = result.output.object !== undefined ? JSON.stringify(result.output.object) : result.output.text;
  if (text !== '') content.push({ type: 'text', text });
  for (const call of result.output.toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args });
  }
  return {
    content,
    finishReason: finishReasonOf(result.output.finishReason),
    usage: usageOf(result.usage),
    providerMetadata: { modelRetry: metadataOf(result) },
    response: {
      ...(result.responseId !== undefined ? { id: result.responseId } : {}),
      modelId: result.model,
    },
    warnings: [],
  };
}

/** The answer as the parts of a stream: the whole text as one delta, then the tool calls, then the finish. */
export function streamParts(result: ModelCallResult): LanguageModelV4StreamPart[] {
  const answer = generateResult(result);
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', ...answer.response },
  ];
  answer.content.forEach((c, i) => {
    if (c.type === 'text') {
      const id = `text-${i}`;
      parts.push(
        { type: 'text-start', id },
        { type: 'text-delta', id, delta: c.text },
        { type: 'text-end', id },
      );
    } else if (c.type === 'tool-call') parts.push(c);
  });
  parts.push({
    type: 'finish',
    finishReason: answer.finishReason,
    usage: answer.usage,
    ...(answer.providerMetadata ? { providerMetadata: answer.providerMetadata } : {}),
  });
  return parts;
}

function finishReasonOf(raw: string): LanguageModelV4FinishReason {
  return { unified: (UNIFIED.has(raw) ? raw : 'other') as LanguageModelV4FinishReason['unified'], raw };
}

function metadataOf(result: ModelCallResult): ModelRetryMetadata {
  return {
    callId: result.callId,
    model: result.model,
    backend: result.backend,
    attempts: result.attempts.length,
  };
}

/** Our usage as the AI SDK's: what the provider did not report stays `undefined`, never 0. */
export function usageOf(usage: Usage | undefined): LanguageModelV4Usage {
  const u = usage ?? {};
  const cached = u.cachedInputTokens;
  const reasoning = u.reasoningTokens;
  return {
    inputTokens: {
      total: u.inputTokens,
      noCache: u.inputTokens !== undefined && cached !== undefined ? u.inputTokens - cached : undefined,
      cacheRead: cached,
      cacheWrite: undefined,
    },
    outputTokens: {
      total: u.outputTokens,
      text: u.outputTokens !== undefined && reasoning !== undefined ? u.outputTokens - reasoning : undefined,
      reasoning,
    },
  };
}
