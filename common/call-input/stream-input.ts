import type { ModelCallInput } from '../call.js';
import { DEFAULT_STREAM_BATCH_MS, MAX_STREAM_BATCH_MS, MIN_STREAM_BATCH_MS } from '../stream.js';
import type { StreamConfig } from '../stream.js';
import { InvalidModelCallInputError } from '../input-error.js';

/**
 * How a call streams, checked: `undefined` when it does not, else its batch interval and what a cut does. `stream`
 * is a boolean or `{ batchMs, onCut }` with `batchMs` a whole number of milliseconds in [10, 60000] and `onCut`
 * `'stop'` (the default) or `'continue'`.
 */
export function streamOf(input: Pick<ModelCallInput, 'stream'>): StreamConfig | undefined {
  const stream = input.stream;
  if (stream === undefined || stream === false) return undefined;
  if (stream === true) return { batchMs: DEFAULT_STREAM_BATCH_MS };
  if (typeof stream !== 'object' || stream === null || Array.isArray(stream)) {
    throw new InvalidModelCallInputError('stream', 'must be `true`, `false` or `{ batchMs, onCut }`');
  }
  for (const key of Object.keys(stream)) {
    if (key !== 'batchMs' && key !== 'onCut') {
      throw new InvalidModelCallInputError(
        `stream.${key}`,
        'unknown field; the fields are `batchMs` and `onCut`',
      );
    }
  }
  const onCut = 'onCut' in stream ? stream.onCut : 'stop';
  if (onCut !== 'stop' && onCut !== 'continue') {
    throw new InvalidModelCallInputError(
      'stream.onCut',
      `must be 'stop' (a cut stream stops the call) or 'continue' (the next attempt continues its text); got ${JSON.stringify(onCut)}`,
    );
  }
  const batchMs = stream.batchMs ?? DEFAULT_STREAM_BATCH_MS;
  if (!Number.isInteger(batchMs) || batchMs < MIN_STREAM_BATCH_MS || batchMs > MAX_STREAM_BATCH_MS) {
    throw new InvalidModelCallInputError(
      'stream.batchMs',
      `must be a whole number of milliseconds from ${MIN_STREAM_BATCH_MS} to ${MAX_STREAM_BATCH_MS} (got ${String(batchMs)})`,
    );
  }
  return onCut === 'continue' ? { batchMs, onCut } : { batchMs };
}

/**
 * `onCut: 'continue'` needs a plan of more than one attempt: the next attempt continues the cut text, and with one
 * attempt a cut would stop the call as `'stop'` does (less clearly). Checked with the call's resolved plan.
 */
export function checkOnCutPlan(stream: StreamConfig | undefined, maxAttempts: number): void {
  if (stream?.onCut !== 'continue' || maxAttempts > 1) return;
  throw new InvalidModelCallInputError(
    'stream.onCut',
    "`'continue'` needs a retry plan of more than one attempt (`retry`, such as `{ waits: [1000] }`): the next " +
      'attempt continues the cut text',
  );
}
