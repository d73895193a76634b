/**
 * One streamed request (`doStream`) read to its end: each part is published as it arrives (`publishPart`), and
 * the parts add up to what `doGenerate` would have returned, whole (`StreamContent`), so a streamed answer is
 * judged and recorded the same way (`unusableAnswer`, `successOf`). An error part ends the read as a failure of
 * the attempt.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { InvalidResponseDataError } from '@ai-sdk/provider';
import { ObservedPhase } from '../../policy/index.js';
import { observeError, providerErrorOf } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import type { DeltaPublisher } from './delta-publisher.js';
import { StreamContent } from './stream-content.js';
import { StreamGate } from './stream-gate.js';
import { toWire } from '../../common/request.js';
import { STREAM_PART_TYPES } from '../../common/stream.js';
import type { StreamPart } from '../../common/stream.js';

/** A stream that reported an error part (the provider's error event, or an event that could not be parsed). */
export class StreamErrorPart extends Error {
  override name = 'StreamErrorPart';
  constructor(readonly value: unknown) {
    super(value instanceof Error ? value.message : `the stream reported an error: ${messageOf(value)}`);
  }
}

/** What a stream that ended without its finish event reports (`ConnectionLost`, even when it ended cleanly). */
export const ENDED_WITHOUT_FINISH = 'the stream ended without its finish event';

/**
 * Whether an error part is the SDK's own report of a stream that ended without a finish reason:
 * `@ai-sdk/openai-compatible` sends an `InvalidResponseDataError` with no data when the stream ends (a bad tool
 * call delta carries its data), where `@ai-sdk/openai` and `@ai-sdk/anthropic` send a finish with no raw reason.
 */
function isEndWithoutFinish(error: unknown): boolean {
  return InvalidResponseDataError.isInstance(error) && error.data === undefined;
}

/**
 * Whether a stream's finish part is the SDK's placeholder for a stream that ended without the provider's finish
 * event: no raw reason, and the unified reason the SDK starts with (`interrupted` for `@ai-sdk/openai` and
 * `@ai-sdk/google`, `other` for `@ai-sdk/anthropic`). A complete Responses API stream also has no raw reason
 * (its `response.completed` states none) but a unified one it derived (`stop`, `tool-calls`).
 */
function endedWithoutFinish(reason: LanguageModelV4FinishReason): boolean {
  return reason.raw === undefined && (reason.unified === 'interrupted' || reason.unified === 'other');
}

/**
 * What of a part reaches the caller's stream as it arrives: today the text deltas only. The one place that
 * decides it, so that publishing the AI SDK's own parts (reasoning, tool input, tool calls, finish) is a change
 * here and in the publisher, not in the reading.
 */
export function publishPart(publisher: DeltaPublisher, part: LanguageModelV4StreamPart): void {
  if (part.type === 'text-delta') publisher.add(part.delta);
  else if (part.type === 'file') publisher.add('', { type: 'file', mediaType: part.mediaType });
  // The finish goes out once the answer has passed its checks (see `finishPart`).
  else if (part.type !== 'finish' && PUBLISHED.has(part.type)) publisher.add('', toWire(part) as StreamPart);
}

const PUBLISHED: ReadonlySet<string> = new Set(STREAM_PART_TYPES);

/** The finish part subscribers get when the attempt's answer is accepted: its finish reason and usage. */
export function finishPart(result: LanguageModelV4GenerateResult): StreamPart {
  return toWire({
    type: 'finish' as const,
    finishReason: result.finishReason,
    usage: result.usage,
    ...(result.providerMetadata !== undefined ? { providerMetadata: result.providerMetadata } : {}),
  }) as StreamPart;
}

/**
 * Sends `options` as a streamed request and reads it to the end. Each part goes through `gate` (a continuation's
 * head, held tool input): the answer is made of what it publishes, so the result says what the stream got.
 */
export async function streamAnswer(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  publisher: DeltaPublisher,
  gate: StreamGate = new StreamGate(),
): Promise<LanguageModelV4GenerateResult> {
  const { stream, request, response } = await model.doStream(options);
  const content = new StreamContent();
  for await (const part of stream) {
    if (part.type === 'error') {
      throw new StreamErrorPart(isEndWithoutFinish(part.error) ? ENDED_WITHOUT_FINISH : part.error);
    }
    // The SDK's placeholder finish of a stream that broke off: the parts the gate holds for a real finish (tool
    // calls under `onCut: 'continue'`) must not go out.
    if (part.type === 'finish' && endedWithoutFinish(part.finishReason)) {
      throw new StreamErrorPart(ENDED_WITHOUT_FINISH);
    }
    for (const passed of gate.push(part)) {
      content.add(passed);
      publishPart(publisher, passed);
    }
  }
  const finish = content.finish;
  // A proxy may end a stream cleanly half-way: with no finish reason from the provider, the answer is partial.
  if (finish === undefined || endedWithoutFinish(finish.finishReason)) {
    throw new StreamErrorPart(ENDED_WITHOUT_FINISH);
  }
  return content.result(finish, request, response?.headers);
}

/**
 * What an error part says: a parse error or an SDK error is read like a thrown one. A provider's error event
 * (`{ type: 'overloaded_error' }`) is classified by its own status and type, like the same error before the
 * stream: the status the SDK gave it (`statusCode`), a numeric `status` or `code` of the event, else the one the
 * provider family's table gives its code or type (`streamErrorStatus`). An event with no status known, and a
 * stream that ended without its finish event, are a body that broke off (`ConnectionLost`).
 */
export function observeStreamError(
  error: StreamErrorPart,
  streamErrorStatus?: (error: { code?: string; type?: string }) => number | undefined,
): ObservedError {
  const value = error.value;
  if (value instanceof Error) {
    const observed = observeError(value);
    if (Object.keys(observed.observation).length > 0) return observed;
  }
  const provider = typeof value === 'object' && value !== null ? providerErrorOf({ error: value }) : {};
  const status =
    httpStatus(value) ?? (value === ENDED_WITHOUT_FINISH ? undefined : streamErrorStatus?.(provider));
  return {
    observation: {
      phase: ObservedPhase.Body,
      ...(status === undefined ? { bodyComplete: false } : { status }),
      ...(provider.code !== undefined ? { providerCode: provider.code } : {}),
      ...(provider.type !== undefined ? { providerType: provider.type } : {}),
    },
    message: error.message,
  };
}

/** An HTTP status an error event states as a number: `statusCode` (the AI SDK's), `status`, or a numeric `code`. */
function httpStatus(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as { statusCode?: unknown; status?: unknown; code?: unknown };
  for (const candidate of [fields.statusCode, fields.status, fields.code]) {
    const n = typeof candidate === 'string' && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 400 && n <= 599) return n;
  }
  return undefined;
}

/** An SDK stream error's own `message` (`createProviderStreamError`), else the value described. */
function messageOf(value: unknown): string {
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : describe(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value).slice(0, 300);
  } catch {
    return String(value);
  }
}
