import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm-codec.js';
import { ClaimCheckCodec } from './claim-check-codec.js';
import { codecKeysFromEnv } from './codec-keys.js';
import type { CodecKey } from './codec-keys.js';
import { MissingCodecGuard } from './missing-codec-guard.js';
import type { PayloadStore } from './payload-store.js';
import { claimThresholdFromEnv, payloadStoreFromEnv } from './store-config.js';

/** What payload security is configured: encryption keys, a payload store, both, or neither. */
export interface PayloadSettings {
  /** AES-256-GCM keys; the first encrypts, all decrypt. Absent: payloads are not encrypted. */
  codecKeys?: readonly CodecKey[];
  /** Where strings over `claimThresholdBytes` go. Absent: everything stays in the history. */
  payloadStore?: PayloadStore;
  /** @default 2048 */
  claimThresholdBytes?: number;
}

/**
 * Path of the failure converter module that encodes failure messages and stack traces (`.ts` in a source
 * checkout, `.js` once built), for `DataConverter.failureConverterPath` and `bundleWorkflowCode`.
 */
export function encodingFailureConverterPath(): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`./failure-converter.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('model-retry: cannot find payloads/failure-converter.{ts,js}');
}

/**
 * The data converter for workers (`Worker.create`, `createModelRetryWorker`) and clients (`new Client`) that
 * share `settings`. Codecs, in encoding order: the claim-check codec (strings over the threshold go to the store,
 * sealed with the keys when there are keys), then AES-256-GCM (every payload encrypted whole, so the references
 * are too). With keys, failure messages and stack traces are encoded as well (`encodeCommonAttributes`); a
 * prebuilt workflow bundle must then be built with `failureConverterPath: encodingFailureConverterPath()`.
 * With no settings it is Temporal's default converter plus a guard that names the missing setting when an
 * encrypted or claim-checked payload arrives.
 */
export function createDataConverter(settings: PayloadSettings = {}): DataConverter {
  const codecs: PayloadCodec[] = [new MissingCodecGuard()];
  const keys = settings.codecKeys && settings.codecKeys.length > 0 ? settings.codecKeys : undefined;
  const aes = keys ? new AesGcmCodec(keys) : undefined;
  if (settings.payloadStore) {
    codecs.push(
      new ClaimCheckCodec({
        store: settings.payloadStore,
        ...(settings.claimThresholdBytes !== undefined
          ? { thresholdBytes: settings.claimThresholdBytes }
          : {}),
        ...(aes ? { blobCodecs: [aes], group: `key-${aes.keyId}` } : {}),
      }),
    );
  }
  if (aes) codecs.push(aes);
  return {
    payloadCodecs: codecs,
    ...(aes ? { failureConverterPath: encodingFailureConverterPath() } : {}),
  };
}

/**
 * The settings from the environment: `MODEL_RETRY_CODEC_KEYS` or `MODEL_RETRY_CODEC_KEYS_FILE`,
 * `MODEL_RETRY_PAYLOAD_STORE` (and the AWS variables for S3), `MODEL_RETRY_PAYLOAD_STORE_THRESHOLD`. Read and
 * checked at once, so a bad setting is refused before anything connects.
 * @throws ConfigError naming the variable and the fix.
 */
export function payloadSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadSettings {
  const codecKeys = codecKeysFromEnv(env);
  const payloadStore = payloadStoreFromEnv(env);
  const claimThresholdBytes = claimThresholdFromEnv(env);
  return {
    ...(codecKeys ? { codecKeys } : {}),
    ...(payloadStore ? { payloadStore, claimThresholdBytes } : {}),
  };
}

/** `createDataConverter(payloadSettingsFromEnv(env))`. */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return createDataConverter(payloadSettingsFromEnv(env));
}

/** One line for logs: which key encrypts, how many decrypt, where the store is. Never key material. */
export function describePayloadSettings(settings: PayloadSettings): string | undefined {
  const parts: string[] = [];
  const keys = settings.codecKeys ?? [];
  if (keys.length > 0)
    parts.push(
      `payloads encrypted (AES-256-GCM) with key id "${keys[0]?.id}"` +
        (keys.length > 1
          ? `; ${keys.length - 1} older key(s) decrypt: ${keys
              .slice(1)
              .map((k) => `"${k.id}"`)
              .join(', ')}`
          : ''),
    );
  if (settings.payloadStore)
    parts.push(
      `strings over ${settings.claimThresholdBytes ?? 2048} bytes stored once in ${settings.payloadStore.description}`,
    );
  return parts.length > 0 ? parts.join('; ') : undefined;
}
