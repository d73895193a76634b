/**
 * One streamed request (`doStream`) read to its end: each text delta goes to the publisher as it arrives, and
 * the parts add up to what `doGenerate` would have returned, so a streamed answer is judged and recorded the
 * same way (`unusableAnswer`, `successOf`). An error part ends the read as a failure of the attempt.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { InvalidResponseDataError } from '@ai-sdk/provider';
import { ObservedPhase } from '../../policy/index.js';
import { observeError, providerErrorOf } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import type { DeltaPublisher } from './delta-publisher.js';

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

/** Sends `options` as a streamed request and reads it to the end. */
export async function streamAnswer(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  publisher: DeltaPublisher,
): Promise<LanguageModelV4GenerateResult> {
  const { stream, request, response } = await model.doStream(options);
  const content: LanguageModelV4Content[] = [];
  const texts = new Map<string, { type: 'text'; text: string }>();
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
  let metadata: Omit<Extract<LanguageModelV4StreamPart, { type: 'response-metadata' }>, 'type'> = {};
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta': {
        let text = texts.get(part.id);
        if (!text) {
          text = { type: 'text', text: '' };
          texts.set(part.id, text);
          content.push(text);
        }
        text.text += part.delta;
        publisher.add(part.delta);
        break;
      }
      case 'tool-call':
        content.push(part);
        break;
      case 'response-metadata': {
        const { type: _type, ...rest } = part;
        metadata = rest;
        break;
      }
      case 'finish':
        finish = part;
        break;
      case 'error':
        throw new StreamErrorPart(isEndWithoutFinish(part.error) ? ENDED_WITHOUT_FINISH : part.error);
      default:
        break;
    }
  }
  // A proxy may end a stream cleanly half-way: with no finish reason from the provider, the answer is partial.
  if (finish === undefined || endedWithoutFinish(finish.finishReason)) {
    throw new StreamErrorPart(ENDED_WITHOUT_FINISH);
  }
  return {
    content,
    finishReason: finish.finishReason,
    usage: finish.usage,
    ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
    ...(request ? { request } : {}),
    response: { ...metadata, ...(response?.headers ? { headers: response.headers } : {}) },
    warnings: [],
  };
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
