import { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import protoPackage from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { boundedMessage } from '../common/scrub.js';
import { decodeHistory } from './decode-history.js';
import { fetchRunChain, runLinks } from './history-chain.js';
import { idOf } from './history-events.js';
import type { RecordedRuns } from './rerun-requests.js';

type History = temporal.api.history.v1.IHistory;
const HistoryProto = protoPackage.temporal.api.history.v1.History;

/**
 * Every run of `workflowId`'s chain, decoded through `client`'s codecs (its keys and payload store, as a worker
 * has them). A payload that cannot be decoded (its stored object is gone, a key is not loaded) does not fail the
 * whole read: its event is noted with the codec's message and its payloads read as `null`, so only the calls it
 * belongs to are skipped.
 */
export async function fetchRecordedRuns(client: Client, workflowId: string): Promise<RecordedRuns> {
  // The raw chain: a client with no codecs fetches the payloads as the server holds them.
  const raw = new Client({ connection: client.connection, namespace: client.options.namespace });
  const chain = await fetchRunChain(raw, workflowId);
  const codecs = client.options.loadedDataConverter.payloadCodecs;
  const undecodable = new Map<string, string>();
  const histories = await Promise.all(chain.map((h) => decodeTolerant(h, codecs, undecodable)));
  return { workflowId, histories, undecodable };
}

/** `history` decoded as a whole, else event by event, noting in `undecodable` each event that cannot be. */
export async function decodeTolerant(
  history: History,
  codecs: readonly PayloadCodec[],
  undecodable: Map<string, string>,
): Promise<History> {
  try {
    return await decodeHistory(history, codecs);
  } catch {
    // One payload is unreadable: find which, event by event.
  }
  const runId = runLinks(history).runId ?? '';
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  for (const event of history.events ?? []) {
    try {
      const decoded = await decodeHistory({ events: [event] }, codecs);
      events.push(decoded.events?.[0] ?? event);
    } catch (error) {
      // The reason goes into the rerun's input and history: bounded and scrubbed like an attempt's failure message
      // (a codec or store error may echo a URL with credentials, or a key).
      undecodable.set(
        `${runId}/${idOf(event.eventId)}`,
        boundedMessage(String((error as Error)?.message ?? error)),
      );
      events.push(await withoutPayloads(event));
    }
  }
  return { events };
}

const NULL_PAYLOAD = defaultPayloadConverter.toPayload(null) as Payload;

/** A copy of `event` whose payloads all read as `null` (what could not be decoded is not guessed). */
async function withoutPayloads(
  event: temporal.api.history.v1.IHistoryEvent,
): Promise<temporal.api.history.v1.IHistoryEvent> {
  const copy = HistoryProto.decode(HistoryProto.encode({ events: [event] }).finish());
  await visit({ history: copy }, walkGetWorkflowExecutionHistoryResponse, {
    transformPayload: async () => NULL_PAYLOAD,
    transformPayloads: async (payloads: Payload[]) => payloads.map(() => NULL_PAYLOAD),
    skipSearchAttributes: true,
  });
  return copy.events?.[0] ?? event;
}
