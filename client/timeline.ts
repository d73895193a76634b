import type { AttemptRecord } from '../common/call.js';

/** Milliseconds between two ISO times, or undefined when one is missing. */
function spanMs(from: string, to: string | undefined): number | undefined {
  if (!to) return undefined;
  return Date.parse(to) - Date.parse(from);
}

function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** `ServerError 502` / `RateLimited 429 (retry-after 1000 ms)` / `succeeded`. */
export function outcomeText(record: AttemptRecord): string {
  const f = record.failure;
  const streamed =
    record.streamedDeltas !== undefined && record.streamedDeltas > 0
      ? ` (streamed ${record.streamedDeltas} deltas)`
      : '';
  if (record.outcome !== 'failed' || !f) return `${record.outcome}${streamed}`;
  const status = f.status !== undefined ? ` ${f.status}` : '';
  const retryAfter = f.retryAfterMs !== undefined ? ` (retry-after ${f.retryAfterMs} ms)` : '';
  const mismatch = f.class === 'SchemaMismatch' ? ` (${validatorError(f.message)})` : '';
  return `${f.class}${status}${retryAfter}${mismatch}${streamed}`;
}

/** How the activity words a `SchemaMismatch` (`activities/attempt/structured-output.ts`): this prefix, then the first error. */
const MISMATCH_PREFIX = 'the answer does not match output.schema: ';
const MAX_SHOWN_ERROR_CHARS = 80;

/** The validator's first error of a `SchemaMismatch` message, cut to a timeline's width. */
function validatorError(message: string): string {
  const error = message.startsWith(MISMATCH_PREFIX) ? message.slice(MISMATCH_PREFIX.length) : message;
  return error.length <= MAX_SHOWN_ERROR_CHARS ? error : `${error.slice(0, MAX_SHOWN_ERROR_CHARS - 1)}…`;
}

/** What followed a failed attempt: `retry-same, next in 250 ms`, `advance, next at once`, or nothing. */
export function followText(record: AttemptRecord): string {
  const action = record.failure?.action;
  if (record.retryInMs === undefined) return action ? `${action}, stopped` : '';
  const when = record.retryInMs === 0 ? 'next at once' : `next in ${duration(record.retryInMs)}`;
  return action ? `${action}, ${when}` : when;
}

/**
 * A readable timeline of attempts, one line each: attempt id, backend and model, outcome with class and status,
 * how long the request took, and the decision and wait that followed.
 *
 *   c1.1  [0] local:fast   ServerError 502                  12 ms  -> retry-same, next in 250 ms
 */
export function formatTimeline(records: readonly AttemptRecord[]): string[] {
  const rows = records.map((r) => ({
    id: r.modelCallId,
    where: `[${r.backend}] ${r.model}`,
    outcome: outcomeText(r),
    took: duration(spanMs(r.startedAt, r.endedAt)),
    next: followText(r),
  }));
  const width = (k: keyof (typeof rows)[number]) => Math.max(0, ...rows.map((row) => row[k].length));
  const [wId, wWhere, wOutcome, wTook] = [width('id'), width('where'), width('outcome'), width('took')];
  return rows.map((row) =>
    [
      row.id.padEnd(wId),
      row.where.padEnd(wWhere),
      row.outcome.padEnd(wOutcome),
      row.took.padStart(wTook),
      row.next ? `-> ${row.next}` : '',
    ]
      .join('  ')
      .trimEnd(),
  );
}
