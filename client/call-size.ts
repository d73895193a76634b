import type { Client } from '@temporalio/client';
import {
  PAYLOAD_STORE_FIX,
  TEMPORAL_PAYLOAD_LIMIT_BYTES,
  encodedPayloadSize,
  megabytes,
} from '../payloads/payload-size.js';
import { InvalidModelCallInputError } from '../common/input-error.js';
import type { ModelCallInput } from '../common/call.js';

/**
 * Room the attempt's own fields take beside the conversation (ids, model, timeout, the previous decision):
 * every attempt's input carries the whole conversation, so the call's input must leave it free.
 */
export const ATTEMPT_ROOM_BYTES = 16 * 1024;

/**
 * Refuses a call whose input would not fit in Temporal's payload limit as `client` stores it (its data
 * converter: with a payload store a long prompt is a reference and fits), before anything starts: throws
 * `InvalidModelCallInputError` naming the largest field and the fix. Without the check the server refuses the
 * start with a bare "Failed to start Workflow".
 */
export async function checkCallSize(client: Client, input: ModelCallInput): Promise<void> {
  const { bytes } = await encodedPayloadSize(input, client.options.loadedDataConverter);
  if (bytes + ATTEMPT_ROOM_BYTES <= TEMPORAL_PAYLOAD_LIMIT_BYTES) return;
  const field = largestField(input);
  throw new InvalidModelCallInputError(
    field.name,
    `is ${megabytes(field.bytes)} (the whole input ${megabytes(bytes)} as Temporal stores it); Temporal's limit ` +
      `on one payload is 2 MB and every attempt's input carries the whole conversation: shorten it, ` +
      PAYLOAD_STORE_FIX,
  );
}

/** The field of the input that weighs most (a message by its index), with its JSON size in UTF-8 bytes. */
export function largestField(input: ModelCallInput): { name: string; bytes: number } {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');
  const fields: { name: string; bytes: number }[] = [
    ...(['prompt', 'system', 'tools', 'settings'] as const).map((name) => ({
      name,
      bytes: size(input[name]),
    })),
    ...(input.messages ?? []).map((m, i) => ({ name: `messages[${i}]`, bytes: size(m) })),
  ];
  return fields.reduce((a, b) => (b.bytes > a.bytes ? b : a));
}
