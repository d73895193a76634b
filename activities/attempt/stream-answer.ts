/**
 * One streamed request (`doStream`) read to its end: each text delta goes to the publisher as it arrives, and
 * the parts add up to what `doGenerate` would have returned, so a streamed answer is judged and recorded the
 * same way (`unusableAnswer`, `successOf`). An error part ends the read as a failure of the attempt.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { ObservedPhase } from '../../policy/index.js';
import { observeError, providerErrorOf } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import type { DeltaPublisher } from './delta-publisher.js';

/** A stream that reported an error part (the provider's error event, or an event that could not be parsed). */
export class StreamErrorPart extends Error {
  override name = 'StreamErrorPart';
  constructor(readonly value: unknown) {
    super(value instanceof Error ? value.message : `the stream reported an error: ${describe(value)}`);
  }
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
        throw new StreamErrorPart(part.error);
      default:
        break;
    }
  }
  if (!finish) throw new StreamErrorPart('the stream ended without a finish event');
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
 * What an error part says: a parse error or an SDK error is read like a thrown one; a provider's error event
 * (`{ type: 'overloaded_error' }`) is a body that broke off, with the provider's code and type.
 */
export function observeStreamError(error: StreamErrorPart): ObservedError {
  const value = error.value;
  if (value instanceof Error) {
    const observed = observeError(value);
    if (Object.keys(observed.observation).length > 0) return observed;
  }
  const provider = typeof value === 'object' && value !== null ? providerErrorOf({ error: value }) : {};
  return {
    observation: {
      phase: ObservedPhase.Body,
      bodyComplete: false,
      ...(provider.code !== undefined ? { providerCode: provider.code } : {}),
      ...(provider.type !== undefined ? { providerType: provider.type } : {}),
    },
    message: error.message,
  };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value).slice(0, 300);
  } catch {
    return String(value);
  }
}
