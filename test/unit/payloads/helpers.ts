import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { CodecKey } from '../../../payloads/codec-keys.js';

/** A fresh random key under `id`. */
export function key(id: string): CodecKey {
  return { id, key: new Uint8Array(randomBytes(32)) };
}

/** `ID:BASE64` for the environment. */
export function keyEntry(k: CodecKey): string {
  return `${k.id}:${Buffer.from(k.key).toString('base64')}`;
}

export function toPayload(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}

export function fromPayload<T>(payload: Payload | undefined): T {
  return defaultPayloadConverter.fromPayload<T>(payload as Payload);
}

export function metadataOf(payload: Payload | undefined, name: string): string | undefined {
  const raw = payload?.metadata?.[name];
  return raw ? new TextDecoder().decode(raw) : undefined;
}

/** Whether `bytes` contain `text` as UTF-8. */
export function containsText(bytes: Uint8Array | null | undefined, text: string): boolean {
  return Buffer.from(bytes ?? new Uint8Array()).includes(Buffer.from(text, 'utf8'));
}
