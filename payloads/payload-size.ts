/**
 * How big a value is as Temporal stores it, against the server's limit on one payload. Measured through the data
 * converter in use (its payload converter, then its codecs: a payload store shrinks a large prompt to a
 * reference, encryption adds a few bytes; a payload external storage will offload counts as offloaded), so the
 * same check refuses a 3 MB prompt without a payload store and lets it through with one.
 */
import { defaultDataConverter } from '@temporalio/common';
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import protoPackage from '@temporalio/proto';

const { Payloads } = protoPackage.temporal.api.common.v1;

/**
 * Temporal's limit on one payload (an input, a result, failure details): the server's default
 * `limit.blobSize.error`, 2 MB. A larger one is refused: a start fails, a schedule terminates the workflow,
 * an activity's completion becomes a failure.
 */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/** Values whose plain payload is smaller than the limit by this much skip the codecs: none grows a payload so. */
const CODEC_HEADROOM_BYTES = 64 * 1024;

/** A value's size as stored. */
export interface PayloadSize {
  /** Bytes of its encoded payload (as the server counts them); 0 when offloaded to external storage. */
  bytes: number;
  /** Whether the data converter's external storage takes it out of the history. */
  offloaded: boolean;
}

/** Bytes of a payload as the server counts them (the encoded `Payloads` message holding it). */
export function payloadBytes(payload: Payload): number {
  return Payloads.encode({ payloads: [payload] }).finish().length;
}

/**
 * The size of `value` as the data converter `converter` stores it. A value well under the limit is measured
 * without running the codecs (a payload store's codec writes to its store).
 */
export async function encodedPayloadSize(
  value: unknown,
  converter: LoadedDataConverter = defaultDataConverter,
): Promise<PayloadSize> {
  const plain = converter.payloadConverter.toPayload(value);
  const plainBytes = payloadBytes(plain);
  if (plainBytes <= TEMPORAL_PAYLOAD_LIMIT_BYTES - CODEC_HEADROOM_BYTES) {
    return { bytes: plainBytes, offloaded: false };
  }
  let payloads = [plain];
  for (const codec of converter.payloadCodecs) payloads = await codec.encode(payloads);
  const encoded = payloads[0] ?? plain;
  const bytes = payloadBytes(encoded);
  const storage = converter.externalStorage;
  if (storage !== undefined && bytes > storage.payloadSizeThreshold && storage.driverSelector({}, encoded)) {
    return { bytes: 0, offloaded: true };
  }
  return { bytes, offloaded: false };
}

/** `bytes` in MB (of 1024 × 1024 bytes, as Temporal counts its 2 MB), one decimal: `3.1 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Where a refusal points for the fix: the payload store (see docs/operations/security.md). */
export const PAYLOAD_STORE_FIX =
  'or enable the payload store on workers and clients (MODEL_RETRY_PAYLOAD_STORE; see docs/operations/security.md)';
