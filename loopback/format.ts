import type { OkStep } from './steps.js';

/** What an answer needs besides its step. */
export interface AnswerContext {
  /** The request's sequence number: ids are derived from it, so runs are reproducible. */
  seq: number;
  /** The `model` of the request. */
  model: string;
}

/** One server-sent event, already encoded; `delta` marks content deltas (what `cutAfterChunks` counts). */
export interface StreamEvent {
  text: string;
  delta: boolean;
}

/** The provider APIs the loopback provider speaks. */
export type ProviderApi = 'openai' | 'anthropic' | 'google' | 'openai-responses';

/** What an error body says, in any family's terms (each format renders what it has a place for). */
export interface ErrorFields {
  type?: string;
  code?: string;
  message: string;
  /** A retry delay stated in the body (Gemini `RetryInfo.retryDelay`, "30s"); formats without one ignore it. */
  retryDelay?: string;
}

/** What an error event inside a stream says. */
export interface StreamErrorFields {
  type: string;
  code?: string;
  message: string;
  /** Which event carries it, where the API has more than one (Responses API: `error` or `response.failed`). */
  event?: string;
}

/** The wire format of one provider API. */
export interface ProviderFormat {
  readonly api: ProviderApi;
  /** The JSON body of a successful non-streamed answer. */
  success(step: OkStep, ctx: AnswerContext): unknown;
  /** The events of a successful streamed answer, in order. */
  stream(step: OkStep, ctx: AnswerContext): StreamEvent[];
  /** The JSON body of an error. */
  error(status: number, fields: ErrorFields): unknown;
  /** The provider's error event inside a stream, encoded. */
  streamError(fields: StreamErrorFields, ctx: AnswerContext): string;
  /** Valid JSON that is not an answer (no choices / no content). */
  wrongShape(ctx: AnswerContext): unknown;
  /** Encodes one value as a server-sent event of this API. */
  event(value: unknown): string;
  /** What ends a stream of this API that carries no answer (OpenAI's `[DONE]`). */
  streamEnd: string;
  /** The text of the request's last assistant message, in this API's request shape (absent for embeddings). */
  lastAssistant?(body: unknown): AssistantTail | undefined;
}

/** The text of a request's last assistant message (thoughts and tool calls left out). */
export interface AssistantTail {
  text: string;
  /** It is the request's last message (a prefill), not followed by another (e.g. an instruction). */
  last: boolean;
}

/**
 * The last item of `items` that `textOf` reads as an assistant message (undefined: not one), and whether it is the
 * last item of all.
 */
export function lastAssistantOf(
  items: unknown,
  textOf: (item: Record<string, unknown>) => string | undefined,
): AssistantTail | undefined {
  if (!Array.isArray(items)) return undefined;
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item: unknown = items[i];
    if (typeof item !== 'object' || item === null) continue;
    const text = textOf(item as Record<string, unknown>);
    if (text !== undefined) return { text, last: i === items.length - 1 };
  }
  return undefined;
}

/** A message's content as text: a string, or the `text` of its parts of the given types joined. */
export function contentText(content: unknown, partTypes: readonly string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' &&
      part !== null &&
      'text' in part &&
      typeof part.text === 'string' &&
      (!('type' in part) || partTypes.includes(part.type as string))
        ? part.text
        : '',
    )
    .join('');
}

/** The `messages` (or other list) of a JSON request body. */
export function listOf(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
}

/** A tool call with every default filled in. */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON string. */
  json: string;
  /** The arguments as an object (`{}` when the string is not an object). */
  input: Record<string, unknown>;
  /** Gemini's `thoughtSignature` of the call, when the step gives one. */
  signature?: string;
}

/** The streamed text deltas of a step: its `chunks`, or its text cut after each run of spaces. */
export function textChunks(step: OkStep): string[] {
  if (step.chunks !== undefined) return step.chunks;
  return wordChunks(step.text ?? '');
}

/** A text cut after each run of spaces (how reasoning is streamed). */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}

/** A reasoning block with every default filled in. */
export interface Reasoning {
  text: string;
  signature?: string;
  redactedData?: string;
  /** Responses' item id. */
  id: string;
}

/** The reasoning blocks of a step, in order, with ids. */
export function reasoningOf(step: OkStep, seq: number): Reasoning[] {
  const given =
    step.reasoning === undefined ? [] : Array.isArray(step.reasoning) ? step.reasoning : [step.reasoning];
  return given.map((r, i) => ({
    text: r.text ?? '',
    id: r.id ?? `rs_loopback_${seq}_${i}`,
    ...(r.signature === undefined ? {} : { signature: r.signature }),
    ...(r.redactedData === undefined ? {} : { redactedData: r.redactedData }),
  }));
}

/** Token counts of a step, with the documented defaults (`reasoning` only when the step gives it). */
export function usageOf(step: OkStep): { input: number; output: number; reasoning?: number } {
  const text = textOf(step);
  const reasoning = step.usage?.reasoningTokens;
  return {
    input: step.usage?.inputTokens ?? 10,
    output: step.usage?.outputTokens ?? Math.max(1, Math.ceil(text.length / 4)),
    ...(reasoning === undefined ? {} : { reasoning }),
  };
}

/** The full text of a step. */
export function textOf(step: OkStep): string {
  return step.text ?? step.chunks?.join('') ?? '';
}

/** The tool calls of a step with ids and both forms of the arguments. */
export function toolCallsOf(step: OkStep, seq: number): ToolCall[] {
  return (step.toolCalls ?? []).map((call, i) => {
    const args = call.arguments ?? {};
    const json = typeof args === 'string' ? args : JSON.stringify(args);
    const signature = call.signature === undefined ? {} : { signature: call.signature };
    return { id: call.id ?? `call_${seq}_${i}`, name: call.name, json, input: objectOf(args), ...signature };
  });
}

function objectOf(args: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof args !== 'string') return args;
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
