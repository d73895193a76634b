/**
 * The failure converter used when payloads are encrypted: an error's message and stack trace travel in the
 * failure's `encodedAttributes` payload (encrypted by the codec) instead of in clear text, and the failure's
 * own message reads "Encoded failure". Loaded by path (`DataConverter.failureConverterPath`), by the worker
 * and the client and inside the workflow sandbox, so it imports nothing but `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter: DefaultFailureConverter = new DefaultFailureConverter({
  encodeCommonAttributes: true,
});
