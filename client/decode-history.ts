import type { WorkflowHandle } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import protoPackage from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Failure = temporal.api.failure.v1.IFailure;
const HistoryProto = protoPackage.temporal.api.history.v1.History;

/**
 * A copy of `history` with every payload decoded by `codecs` (decrypted, store references resolved), as the
 * workflow saw it, and each failure's encoded message and stack trace put back in place: what
 * `readCallHistory` needs when the workers encrypt. Search attributes are left alone (codecs never touch them).
 * With no codecs the history is returned as it is.
 * @throws the codecs' errors, e.g. a payload encrypted with a key not loaded (the message names the key id).
 */
export async function decodeHistory(history: History, codecs: readonly PayloadCodec[]): Promise<History> {
  if (codecs.length === 0) return history;
  const copy = HistoryProto.decode(HistoryProto.encode(history).finish());
  const failures: Failure[] = [];
  const decode = async (payloads: Payload[]) => {
    let out = payloads;
    for (const codec of [...codecs].reverse()) out = await codec.decode(out);
    return out;
  };
  await visit({ history: copy }, walkGetWorkflowExecutionHistoryResponse, {
    transformPayload: async (payload) => (await decode([payload]))[0] as Payload,
    transformPayloads: decode,
    skipSearchAttributes: true,
    deriveContext: (message, typeName) => {
      if (typeName === 'temporal.api.failure.v1.Failure') failures.push(message as Failure);
    },
  });
  for (const failure of failures) restoreCommonAttributes(failure);
  return copy;
}

/** The history of `handle`'s run, decoded with the codecs of the client that made the handle. */
export async function fetchDecodedHistory(handle: WorkflowHandle): Promise<History> {
  return decodeHistory(await handle.fetchHistory(), handle.client.options.loadedDataConverter.payloadCodecs);
}

/** As the default failure converter does: `encodedAttributes` `{ message, stack_trace }` back into the failure. */
function restoreCommonAttributes(failure: Failure): void {
  if (!failure.encodedAttributes) return;
  let attributes: unknown;
  try {
    attributes = defaultPayloadConverter.fromPayload(failure.encodedAttributes as Payload);
  } catch {
    return;
  }
  if (attributes === null || typeof attributes !== 'object') return;
  const { message, stack_trace: stackTrace } = attributes as { message?: unknown; stack_trace?: unknown };
  if (typeof message === 'string') failure.message = message;
  if (typeof stackTrace === 'string') failure.stackTrace = stackTrace;
  failure.encodedAttributes = null;
}
