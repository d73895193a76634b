import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import type { Client } from '@temporalio/client';

/**
 * A stream's items in short, for comparing whole streams: each event (`attempt c1.2`, `stop c1 succeeded`), and
 * the text of the deltas between two events joined.
 */
export function streamTrace(items: readonly CallStreamItem[]): string[] {
  const out: string[] = [];
  let text = '';
  for (const item of items) {
    if (item.kind === 'delta') {
      text += item.delta.text;
      continue;
    }
    if (text !== '') out.push(text);
    text = '';
    const e = item.event;
    out.push(e.type === 'attempt' ? `attempt ${e.modelCallId}` : `stop ${e.callId} ${e.stopReason}`);
  }
  if (text !== '') out.push(text);
  return out;
}

/** Every item a subscriber from offset 0 reads of workflow `workflowId` (call it once the workflow has closed). */
export async function readWholeStream(client: Client, workflowId: string): Promise<CallStreamItem[]> {
  const items: CallStreamItem[] = [];
  for await (const item of subscribeCallStream(client, workflowId)) items.push(item);
  return items;
}
