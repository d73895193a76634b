import type { AttemptRecord } from '../../common/call.js';

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
