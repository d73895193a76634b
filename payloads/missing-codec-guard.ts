import type { Payload, PayloadCodec } from '@temporalio/common';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadKeyError, missingKeyMessage } from './aes-gcm-codec.js';
import { CLAIM_ENCODING, PAYLOAD_STORE_ENV } from './claim-check-codec.js';
import { ConfigError } from '../common/config-error.js';

const text = new TextDecoder();

/**
 * The last codec to decode (first in `payloadCodecs`): a payload still encrypted or still holding store
 * references here was written by a worker or client configured with keys or a store that this one lacks. It
 * fails with a message naming the setting, instead of the payload converter's "Unknown encoding".
 */
export class MissingCodecGuard implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const encoding = payload.metadata?.encoding ? text.decode(payload.metadata.encoding) : undefined;
      if (encoding === ENCRYPTED_ENCODING) {
        const id = payload.metadata?.[KEY_ID_METADATA];
        throw new PayloadKeyError(missingKeyMessage(id ? text.decode(id) : '', []));
      }
      if (encoding === CLAIM_ENCODING)
        throw new ConfigError(
          `a payload refers to texts kept in a payload store, and no store is configured: set ${PAYLOAD_STORE_ENV} ` +
            'to the store the workers write to.',
        );
    }
    return payloads;
  }
}
