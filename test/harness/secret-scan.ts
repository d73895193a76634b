import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';

/** One place in a history that holds a credential. */
export interface Leak {
  /** The workflow and run (when known), the event id and type, and the JSON path in the event. */
  where: string;
  /** Which form was found (`Bearer <key>`, the key, its tail), its random part masked. */
  form: string;
  /** The text around it, the secret masked, so that the report never repeats it. */
  excerpt: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isPayload = (value: { [key: string]: Json }): boolean =>
  typeof value.data === 'string' && typeof value.metadata === 'object' && value.metadata !== null;

/**
 * Every credential of `needles` found in a history's full JSON (Temporal's own export format): every string
 * (failure messages, stack traces, summaries...) and every payload decoded from its base64 (inputs, results,
 * failure details, heartbeats, memo, headers, search attributes, user metadata). `label` prefixes each place.
 */
export function findLeaks(
  history: temporal.api.history.v1.IHistory | string,
  needles: readonly string[],
  label = 'history',
): Leak[] {
  const json = JSON.parse(typeof history === 'string' ? history : historyToJSON(history)) as Json;
  const leaks: Leak[] = [];
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  // Shortest first: the random tails go, so `Bearer sk-loopback-SECRET-<masked>` still says which form it was.
  const mask = (text: string) =>
    [...sorted].reverse().reduce((out, n) => out.split(n).join('<masked>'), text);
  const check = (text: string, where: string) => {
    const needle = sorted.find((n) => text.includes(n));
    if (needle === undefined) return;
    const at = text.indexOf(needle);
    leaks.push({
      where,
      form: mask(needle),
      excerpt: mask(text.slice(Math.max(0, at - 60), at + needle.length + 60)),
    });
  };
  const walk = (value: Json, path: string) => {
    if (typeof value === 'string') return check(value, path);
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (isPayload(value)) check(Buffer.from(value.data as string, 'base64').toString('utf8'), `${path}.data`);
    for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  const events = (json as { events?: Json[] } | null)?.events ?? [];
  events.forEach((event, i) => {
    const e = (event ?? {}) as { eventId?: Json; eventType?: Json };
    walk(event, `${label} event ${String(e.eventId ?? i + 1)} (${String(e.eventType)})`);
  });
  if (events.length === 0) walk(json, label);
  return leaks;
}

/** A readable report of leaks for a failing assertion (the secrets themselves masked). */
export function leakReport(leaks: readonly Leak[]): string {
  if (leaks.length === 0) return 'no credential in any history';
  return [
    `${leaks.length} place(s) in workflow histories hold a test credential:`,
    ...leaks.slice(0, 20).map((l) => `- ${l.where}: ${l.form} in …${l.excerpt}…`),
  ].join('\n');
}

/**
 * Fetches the full history of every workflow run `query` finds (all of them when absent) on `client`'s
 * namespace and scans each with {@link findLeaks}.
 */
export async function sweepHistories(
  client: Client,
  needles: readonly string[],
  query?: string,
): Promise<{ scanned: number; leaks: Leak[] }> {
  const leaks: Leak[] = [];
  let scanned = 0;
  for await (const run of client.workflow.list(query === undefined ? {} : { query })) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    leaks.push(...findLeaks(history, needles, `${run.workflowId} (run ${run.runId})`));
    scanned += 1;
  }
  return { scanned, leaks };
}
