import {
  continuing,
  cutMidBody,
  dropBeforeResponse,
  fail,
  hang,
  malformed,
  ok,
  quotaExhausted,
} from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';
import type { ContinueMode, Fault, RetryAfter } from './scenario.js';

/** The text every successful answer carries, and its streamed deltas. */
export const ANSWER_CHUNKS = ['alpha ', 'beta ', 'gamma ', 'delta'];
export const ANSWER = ANSWER_CHUNKS.join('');
/**
 * The text a backend means when a call of the case continues cut streams: long enough that a cut after three of its
 * words has delivered the 20 characters from which a repeated head is trimmed. Streamed word by word.
 */
export const CONTINUE_ANSWER = 'alpha bravo charlie delta echo foxtrot golf hotel';
/**
 * The same with characters outside the Basic Multilingual Plane (two UTF-16 units each, one character): three of
 * its words are 12 characters, 21 UTF-16 units.
 */
export const CONTINUE_WIDE =
  '\u{1F34E}\u{1F34E}\u{1F34E} \u{1F350}\u{1F350}\u{1F350} \u{1F34A}\u{1F34A}\u{1F34A} \u{1F34B}\u{1F34B}\u{1F34B} ' +
  '\u{1F34C}\u{1F34C}\u{1F34C} \u{1F349}\u{1F349}\u{1F349} \u{1F347}\u{1F347}\u{1F347} \u{1F353}\u{1F353}\u{1F353}';
/** The pause between two of its words: a kill a little after a request often lands mid-stream. */
const CONTINUE_CHUNK_MS = 20;
/** How long a continuing stream stalls before its cut. */
const CUT_PAUSE_MS = 80;
/** How long a `stall` stalls: longer than any generated attempt timeout. */
const STALL_MS = 2500;
/** What a clean stream cut delivers before it ends without a finish chunk. */
export const CLEAN_CUT_TEXT = 'partial ';

/**
 * The loopback step that plays `fault` for model `modelId` (a plain or a streamed request). With `continues` (a
 * call of the case continues cut streams), an answer and a stream cut continue the text a request delivered, in
 * that mode: the step after a cut answers the continuation. With `usage` (a tenant's case), an answer reports it.
 */
export function stepOf(
  f: Fault,
  modelId: string,
  stream: boolean,
  continues?: { mode: ContinueMode; text: string },
  usage?: { inputTokens: number; outputTokens: number },
): Step {
  const billed = usage === undefined ? {} : { usage };
  if (f.kind === 'stall' && !stream) return cutMidBody(0.5, { text: continues?.text ?? ANSWER });
  if (f.kind === 'stall' && continues === undefined) {
    return ok(ANSWER, {
      chunks: ANSWER_CHUNKS,
      chunkDelayMs: 5,
      cutAfterChunks: f.chunks,
      cutPauseMs: STALL_MS,
    });
  }
  if (continues !== undefined && (f.kind === 'ok' || f.kind === 'stream-cut' || f.kind === 'stall')) {
    // The stream stalls before its cut, long enough that what it sent reaches the stream (an attempt drops the
    // batch it had not sent yet when it fails): a cut after deltas is then a cut after delivered text.
    const pause = f.kind === 'stall' ? STALL_MS : CUT_PAUSE_MS;
    const cut = f.kind !== 'ok' && stream ? { cutAfterChunks: f.chunks, cutPauseMs: pause } : {};
    const wait = f.kind === 'ok' ? delay(f.delayMs) : {};
    if (f.kind === 'stream-cut' && !stream) return cutMidBody(0.5, { text: continues.text });
    return continuing(continues.text, continues.mode, {
      chunkDelayMs: CONTINUE_CHUNK_MS,
      ...cut,
      ...wait,
      ...billed,
    });
  }
  switch (f.kind) {
    case 'ok':
      return ok(ANSWER, { chunks: ANSWER_CHUNKS, chunkDelayMs: 5, ...delay(f.delayMs), ...billed });
    case 'status': {
      const headers = {
        ...(f.retryAfter ? retryAfterHeader(f.retryAfter) : {}),
        ...(f.shouldRetry === undefined ? {} : { 'x-should-retry': String(f.shouldRetry) }),
      };
      const options = { headers, ...delay(f.delayMs) };
      return f.quota === true ? quotaExhausted(options) : fail(f.status, options);
    }
    case 'drop':
      return dropBeforeResponse(delay(f.delayMs));
    case 'cut':
      return cutMidBody(0.5, { text: ANSWER });
    case 'stream-cut':
      return stream
        ? ok(ANSWER, { chunks: ANSWER_CHUNKS, chunkDelayMs: 5, cutAfterChunks: f.chunks })
        : cutMidBody(0.5, { text: ANSWER });
    case 'clean-cut':
      return stream ? cleanStreamCut(modelId) : cutMidBody(0.5, { text: ANSWER });
    case 'empty-length':
      return ok('', { finishReason: 'length', usage: { inputTokens: 10, outputTokens: 64 } });
    case 'malformed':
      return malformed('invalid-json');
    case 'hang':
      return hang();
    case 'stall':
      throw new Error('unreachable: a stall is played above');
  }
}

function delay(ms: number): { delayMs?: number } {
  return ms > 0 ? { delayMs: ms } : {};
}

/** The headers of a retry-after; an HTTP date is computed now, when the script is written. */
export function retryAfterHeader(ra: RetryAfter): Record<string, string> {
  switch (ra.form) {
    case 'ms':
      return { 'retry-after-ms': String(ra.ms) };
    case 'seconds':
      return { 'retry-after': String(ra.seconds) };
    case 'date':
      return { 'retry-after': new Date(Date.now() + ra.offsetSeconds * 1000).toUTCString() };
  }
}

/**
 * An OpenAI stream that a proxy ended cleanly: one content delta, then the end of the body, with no finish chunk
 * and no `[DONE]`. Sent as a `malformed` step with a body of our own (the loopback has no such step).
 */
function cleanStreamCut(modelId: string): Step {
  const chunk = {
    id: 'chatcmpl-clean-cut',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: modelId,
    choices: [{ index: 0, delta: { role: 'assistant', content: CLEAN_CUT_TEXT }, finish_reason: null }],
  };
  return malformed('invalid-json', {
    body: `data: ${JSON.stringify(chunk)}\n\n`,
    contentType: 'text/event-stream',
  });
}
