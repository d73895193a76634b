/**
 * Payload security (`model-retry/payloads`): AES-256-GCM encryption with rotating keys, the claim-check codec
 * that keeps large strings in a content-addressed store (a folder or an S3 bucket), the data converter that
 * combines them for workers and clients, and the codec endpoint for the Temporal Web UI.
 * @module model-retry/payloads
 */
export { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadKeyError } from './aes-gcm-codec.js';
export {
  CLAIM_ENCODING,
  CLAIMS_METADATA,
  ClaimCheckCodec,
  DEFAULT_CLAIM_THRESHOLD_BYTES,
  DEFAULT_TOUCH_AFTER_MS,
  PAYLOAD_STORE_ENV,
} from './claim-check-codec.js';
export type { ClaimCheckOptions } from './claim-check-codec.js';
export { CODEC_KEYS_ENV, CODEC_KEYS_FILE_ENV, codecKeysFromEnv, parseCodecKeys } from './codec-keys.js';
export type { CodecKey } from './codec-keys.js';
export { DEFAULT_UI_ORIGINS, startCodecServer } from './codec-server.js';
export type { CodecServer, CodecServerOptions } from './codec-server.js';
export {
  createDataConverter,
  dataConverterFromEnv,
  describePayloadSettings,
  encodingFailureConverterPath,
  payloadSettingsFromEnv,
} from './data-converter.js';
export type { PayloadSettings } from './data-converter.js';
export { MissingCodecGuard } from './missing-codec-guard.js';
export { FolderPayloadStore } from './payload-store.js';
export type { PayloadStore } from './payload-store.js';
export { S3PayloadStore } from './s3-payload-store.js';
export type { S3StoreOptions } from './s3-payload-store.js';
export { PAYLOAD_STORE_THRESHOLD_ENV, claimThresholdFromEnv, payloadStoreFromEnv } from './store-config.js';
