import type { ModelRequestResult } from '../../common/attempt.js';
import type { AttemptRecord, BilledTotals } from '../../common/call.js';

/** The most characters of the provider's message an attempt line carries. */
export const ATTEMPT_LINE_MESSAGE_MAX = 200;

/**
 * One line per attempt, as in `ModelCallFailed` messages: `[backend 0 local:fast] ServerError 502: <message>`.
 * The line starts as it always has (backend, class, status); the provider's own message follows (the record's,
 * already scrubbed and bounded), on one line and cut at {@link ATTEMPT_LINE_MESSAGE_MAX} characters.
 */
export function attemptLine(record: AttemptRecord): string {
  const head = `[backend ${record.backend} ${record.model}]`;
  if (record.outcome !== 'failed' || !record.failure) return `${head} ${record.outcome}`;
  const { failure } = record;
  const cut = record.deliveredChars ? ` (cut after ${record.deliveredChars} characters delivered)` : '';
  const line = `${head} ${failure.class}${failure.status !== undefined ? ` ${failure.status}` : ''}${cut}`;
  const message = oneLine(failure.message);
  return message === '' ? line : `${line}: ${message}`;
}

/** `text` on one line (whitespace runs as one space), cut with an ellipsis past the bound. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= ATTEMPT_LINE_MESSAGE_MAX) return flat;
  let end = ATTEMPT_LINE_MESSAGE_MAX - 1;
  // Never half of a surrogate pair.
  const last = flat.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${flat.slice(0, end).trimEnd()}…`;
}

/** What the provider billed across every attempt that reported usage or cost. */
export function billedTotals(records: readonly AttemptRecord[]): BilledTotals {
  const totals: BilledTotals = { attempts: records.length };
  const add = (key: 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cost', value: number | undefined) => {
    if (value !== undefined) totals[key] = (totals[key] ?? 0) + value;
  };
  for (const r of records) {
    add('inputTokens', r.usage?.inputTokens);
    add('outputTokens', r.usage?.outputTokens);
    add('totalTokens', r.usage?.totalTokens);
    add('cost', r.cost);
  }
  return totals;
}

/** Milliseconds since the epoch as an ISO time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The summary of a wait's timer, e.g. `retry in 30 ms after ServerError 502 (c1.2 retry-same)`: readable in the
 * Temporal UI, and it names the attempt and the action so a history read during (or cancelled in) the wait
 * still tells what was decided.
 */
export function waitSummary(waitMs: number, failed: AttemptRecord | undefined): string {
  const f = failed?.failure;
  const cause = f ? ` after ${f.class}${f.status !== undefined ? ` ${f.status}` : ''}` : '';
  const tag = failed ? ` (${failed.modelCallId}${f?.action ? ` ${f.action}` : ''})` : '';
  return `retry in ${waitMs} ms${cause}${tag}`;
}

/** The attempt and action a wait's timer summary (or a cooling check's) names (see `waitSummary`). */
export function parseWaitSummary(summary: string): { modelCallId: string; action?: string } | undefined {
  const m = /\((c\d+\.\d+)(?: (abort|retry-same|advance|drop|repair))?\)$/.exec(summary);
  if (!m?.[1]) return undefined;
  return { modelCallId: m[1], ...(m[2] ? { action: m[2] } : {}) };
}

const CHECK_PREFIX = 'cooling check of ';

/**
 * The summary of a cooling check before an attempt on `model`, e.g.
 * `cooling check of local:b: retry in 0 ms after ServerError 502 (c1.1 advance)`: after a failed attempt it names
 * the decision as a wait's timer does. After a decision with no wait the check's marker is the only event
 * between the decision and the next attempt, so a history that ends there (a cancel or a stop during the check)
 * still tells what was decided.
 */
export function checkSummary(model: string, waitMs: number, failed: AttemptRecord | undefined): string {
  return failed?.failure
    ? `${CHECK_PREFIX}${model}: ${waitSummary(waitMs, failed)}`
    : `${CHECK_PREFIX}${model}`;
}

/** The decision a cooling check's summary names (see `checkSummary`): the attempt, its action and wait. */
export function parseCheckSummary(
  summary: string,
): { modelCallId: string; action?: string; retryInMs: number } | undefined {
  if (!summary.startsWith(CHECK_PREFIX)) return undefined;
  const waited = /: retry in (\d+) ms/.exec(summary);
  const named = parseWaitSummary(summary);
  if (!waited?.[1] || !named) return undefined;
  return { ...named, retryInMs: Number(waited[1]) };
}

/** Marks `record` succeeded with what the attempt's result says (the workflow and the history reader alike). */
export function succeed(record: AttemptRecord, result: ModelRequestResult): void {
  record.outcome = 'succeeded';
  record.startedAt = result.startedAt;
  record.endedAt = result.endedAt;
  record.finishReason = result.finishReason;
  if (result.usage) record.usage = result.usage;
  if (result.responseId !== undefined) record.responseId = result.responseId;
  if (result.provider !== undefined) record.provider = result.provider;
  if (result.cost !== undefined) record.cost = result.cost;
  if (result.continuation !== undefined) record.continuation = result.continuation;
}
