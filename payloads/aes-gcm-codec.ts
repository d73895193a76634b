import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { ValueError } from '@temporalio/common';
import protoPackage from '@temporalio/proto';
import { ConfigError } from '../common/config-error.js';
import { CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV } from './codec-keys.js';
import type { CodecKey } from './codec-keys.js';

const ProtoPayload = protoPackage.temporal.api.common.v1.Payload;

/** `encoding` of an encrypted payload (the same as Temporal's encryption samples). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * Why a payload could not be decrypted; the message names the key id and how to supply the key. A `ConfigError`:
 * the command line refuses with exit 2, a worker fails the task (and retries it once the key is there).
 */
export class PayloadKeyError extends ConfigError {
  override name = 'PayloadKeyError';
}

/**
 * A Temporal `PayloadCodec` that encrypts each payload whole (metadata and data, serialised) with AES-256-GCM
 * under the first of `keys`, and writes that key's id into the payload's metadata, so keys can rotate: put the
 * new key first and keep the old ones for as long as histories written with them are read. Payloads that are
 * not encrypted pass through `decode` unchanged (histories from before the codec was turned on stay readable).
 * The wire form is Temporal's sample one: `encoding: binary/encrypted`, `encryption-key-id`, data = IV ‖
 * ciphertext ‖ tag.
 */
export class AesGcmCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, Uint8Array>;
  private readonly current: CodecKey;

  constructor(keys: readonly CodecKey[]) {
    const first = keys[0];
    if (!first) throw new ValueError('AesGcmCodec needs at least one key');
    for (const k of keys) {
      if (k.key.length !== 32) throw new ValueError(`AesGcmCodec: key "${k.id}" must be 32 bytes`);
    }
    this.current = first;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key that encrypts. */
  get keyId(): string {
    return this.current.id;
  }

  /** Ids of every key that decrypts, the encrypting one first. */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const plain = ProtoPayload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: utf8.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: utf8.encode(this.current.id),
        [CIPHER_METADATA]: utf8.encode(CIPHER),
      },
      data: new Uint8Array(data),
    };
  }

  private decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || text.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const rawId = payload.metadata?.[KEY_ID_METADATA];
    const keyId = rawId ? text.decode(rawId) : '';
    const key = this.byId.get(keyId);
    if (!key) throw new PayloadKeyError(missingKeyMessage(keyId, this.keyIds));
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadKeyError(`an encrypted payload (key id "${keyId}") is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadKeyError(
        `a payload encrypted with key id "${keyId}" does not decrypt with the loaded key of that id: the key ` +
          `material under "${keyId}" in ${CODEC_KEYS_ENV} (or ${CODEC_KEYS_FILE_ENV}) differs from the one that ` +
          'encrypted it, or the payload was altered.',
      );
    }
    return ProtoPayload.decode(plain) as Payload;
  }
}

/** The error for a payload whose key is not loaded: names the key id and how to supply it. */
export function missingKeyMessage(keyId: string, loaded: readonly string[]): string {
  const have =
    loaded.length > 0
      ? `the loaded keys are ${loaded.map((id) => `"${id}"`).join(', ')}`
      : 'no key is loaded';
  return (
    `a payload is encrypted with key id "${keyId || '(none)'}", and ${have}. Add that key (as ${keyId || 'ID'}:BASE64KEY, ` +
    `after the current one) to ${CODEC_KEYS_ENV} or to the file named by ${CODEC_KEYS_FILE_ENV}.`
  );
}
