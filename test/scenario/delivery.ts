/**
 * The delivery oracle of a call that continues cut streams (`stream.onCut: 'continue'`), written from the
 * contract's "Streams that break: continue instead of stop": what a subscriber reads is the answer, each character
 * once. Pure: it takes what the run left behind (records, the stream as read from offset 0, the result or the stop,
 * what each request carried and what the loopback answered it) and never asks the product's own code how to count.
 */
import { StreamedText } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import type { AttemptRecord } from '../../common/call.js';
import type { Violation } from './stop-oracle.js';

/** What a provider request of one attempt carried and got, as the loopback recorded it. */
export interface SentRequest {
  /** The delivered text the request asked to continue (its last assistant message's) and how it asked. */
  continuation?: { delivered: string; form: 'prefill' | 'instruction' };
  /** The whole text the loopback's step answered (a step that continues: what its mode made of the request). */
  answer?: string;
}

export interface DeliveryFacts {
  records: AttemptRecord[];
  /** The stream as a subscriber from offset 0 read it, to the end. */
  items: CallStreamItem[];
  /** The call's answer text, when it succeeded. */
  resultText?: string;
  /** The text parts of its answer's content, joined (when it has content). */
  resultContentText?: string;
  /** The call stopped without an answer (not cancelled): what its failure said was delivered. */
  stopped?: { partialText?: string };
  /** Each attempt's provider request, by `modelCallId` (absent: the attempt sent none). */
  requests: ReadonlyMap<string, SentRequest>;
  /** Texts a step may answer whole (a first attempt's, or a step that does not continue): what was sent is a prefix. */
  wholeAnswers: readonly string[];
}

/** The least overlap the contract trims off a continuation's head, and how far back it looks. */
export const MIN_OVERLAP = 20;
export const OVERLAP_WINDOW = 200;

/**
 * Characters as UTF-16 code units, as JavaScript's `length` counts them: the unit of `deliveredChars`, of the
 * overlap rule and of `continuation.trimmed` (so `text.slice(0, deliveredChars)` is what was delivered).
 */
export function units(text: string): string[] {
  return text.split('');
}

/**
 * The contract's overlap rule: the longest suffix of the last 200 delivered characters that is a prefix of the
 * continuation, when at least 20 characters long; else 0. In UTF-16 code units.
 */
export function overlap(delivered: string, continuation: string): number {
  const tail = units(delivered).slice(-OVERLAP_WINDOW);
  const head = units(continuation);
  for (let k = Math.min(tail.length, head.length); k >= MIN_OVERLAP; k -= 1) {
    if (tail.slice(tail.length - k).join('') === head.slice(0, k).join('')) return k;
  }
  return 0;
}

/** How many characters of the end of `delivered` the start of `continuation` repeats (any length). */
function longestRepeat(delivered: string, continuation: string): number {
  const tail = units(delivered);
  const head = units(continuation);
  for (let k = Math.min(tail.length, head.length); k > 0; k -= 1) {
    if (tail.slice(tail.length - k).join('') === head.slice(0, k).join('')) return k;
  }
  return 0;
}

/**
 * A prefill's rule: the delivered text's trailing whitespace is moved out of the prefill, and the characters of the
 * answer's start that repeat it are left out (the model sends that whitespace again, or not).
 */
export function movedOutRepeat(delivered: string, answer: string): number {
  const movedOut = units(delivered.slice(delivered.trimEnd().length));
  const head = units(answer);
  let k = 0;
  while (k < movedOut.length && head[k] === movedOut[k]) k += 1;
  return k;
}

/** Every delivery invariant of a call under `onCut: 'continue'`; an empty list when all hold. */
export function checkDelivery(f: DeliveryFacts): Violation[] {
  const out: Violation[] = [];
  const v = (message: string, known?: string) =>
    out.push({ invariant: 'continue', message, ...(known !== undefined ? { known } : {}) });

  const offsets = f.items.flatMap((i) => (i.offset === undefined ? [] : [i.offset]));
  if (new Set(offsets).size !== offsets.length) v('an offset was delivered twice');

  // The deltas in stream order, and each attempt's text.
  const deltas = f.items.flatMap((i) => (i.kind === 'delta' && i.delta.text !== '' ? [i.delta] : []));
  const all = deltas.map((d) => d.text).join('');
  const byAttempt = new Map<string, string>();
  for (const d of deltas) byAttempt.set(d.modelCallId, (byAttempt.get(d.modelCallId) ?? '') + d.text);
  const index = new Map(f.records.map((r, i) => [r.modelCallId, i]));

  // Attempts deliver one after another: no delta of an earlier attempt after a later one's, none of an unknown one.
  let at = -1;
  for (const d of deltas) {
    const i = index.get(d.modelCallId);
    if (i === undefined) {
      v(`a delta of ${d.modelCallId}, which no record names`);
      continue;
    }
    if (i < at) v(`${d.modelCallId} delivered after ${f.records[at]?.modelCallId} had`);
    at = Math.max(at, i);
  }

  // What a reader shows is every delivered character, in order.
  const shown = new StreamedText();
  for (const item of f.items) shown.take(item);
  if (shown.text !== all) {
    v(`a reader shows ${JSON.stringify(shown.text)}, the stream delivered ${JSON.stringify(all)}`);
  }

  // Each record: how much it delivered, which attempt it continued, what its request carried.
  let before = '';
  let lastCut: string | undefined;
  for (const r of f.records) {
    const text = byAttempt.get(r.modelCallId) ?? '';
    const chars = units(text).length;
    const where = r.modelCallId;
    if (r.outcome !== 'running' && (r.deliveredChars ?? 0) !== chars) {
      v(`${where}: deliveredChars ${r.deliveredChars}, the stream holds ${chars} of its characters`);
    }
    if (r.continues !== lastCut) {
      v(
        lastCut === undefined
          ? `${where} says it continues ${r.continues}, but no earlier attempt delivered text`
          : `${where} continues ${r.continues ?? 'nothing'}, the attempt cut last is ${lastCut}`,
      );
    }
    const sent = f.requests.get(r.modelCallId);
    if (sent !== undefined) checkRequest(r, sent, before, text, f.wholeAnswers, v);
    else if (text !== '') v(`${where} delivered ${JSON.stringify(text)} but sent no request`);
    before += text;
    if (text !== '') lastCut = r.modelCallId;
  }

  if (f.resultText !== undefined && f.resultText !== all) {
    v(`the answer is ${JSON.stringify(f.resultText)}, subscribers read ${JSON.stringify(all)}`);
  }
  if (
    f.resultContentText !== undefined &&
    f.resultText !== undefined &&
    f.resultContentText !== f.resultText
  ) {
    v(
      `the answer's content holds the text ${JSON.stringify(f.resultContentText)}, its text is ${JSON.stringify(f.resultText)}`,
    );
  }
  if (f.stopped !== undefined && (f.stopped.partialText ?? '') !== all) {
    v(
      `stopped with partialText ${JSON.stringify(f.stopped.partialText)}, subscribers read ${JSON.stringify(all)}`,
    );
  }
  return out;
}

/**
 * One attempt's request and its delivery: the request asked to continue exactly what earlier attempts delivered
 * (nothing when none did), and the attempt delivered only what the provider sent after the trimmed head; the head
 * it trimmed repeats the delivered text's end by the overlap rule.
 */
function checkRequest(
  r: AttemptRecord,
  sent: SentRequest,
  before: string,
  text: string,
  wholeAnswers: readonly string[],
  v: (message: string, known?: string) => void,
): void {
  const where = r.modelCallId;
  const asked = sent.continuation;
  if (before === '') {
    if (asked !== undefined)
      v(`${where} asked to continue ${JSON.stringify(asked.delivered)}; nothing was delivered`);
  } else if (asked === undefined) {
    v(`${where} did not ask to continue the ${units(before).length} characters delivered before it`);
  } else {
    // A prefill leaves the delivered text's trailing whitespace out (the model would not end a prefill with it).
    const expected = asked.form === 'prefill' ? before.trimEnd() : before;
    if (asked.delivered !== expected) {
      v(
        `${where} asked to continue ${JSON.stringify(asked.delivered)} (${asked.form}), ` +
          `but subscribers had read ${JSON.stringify(before)}`,
      );
    }
  }
  const trimmed = r.continuation?.trimmed ?? 0;
  // An instruction's trim is a repeat of at least 20 characters; a prefill's, the whitespace moved out of it.
  const tooShort = asked?.form === 'instruction' && trimmed < MIN_OVERLAP;
  if (trimmed !== 0 && (asked === undefined || tooShort)) {
    v(`${where} trimmed ${trimmed} characters of its head`);
  }
  const published = (whole: string) => units(whole).slice(trimmed).join('');
  const answer = sent.answer;
  // A whole answer to a continuation: the head it trimmed is the rule's.
  if (answer !== undefined && asked !== undefined && r.outcome === 'succeeded') {
    const rule = asked.form === 'instruction' ? overlap(before, answer) : movedOutRepeat(before, answer);
    if (trimmed !== rule) {
      const repeat = longestRepeat(before, answer);
      v(
        `${where} trimmed ${trimmed} characters of ${JSON.stringify(answer)}; the overlap rule trims ${rule} ` +
          `(its head repeats the last ${repeat} characters delivered; the rule trims a repeat of at least ` +
          `${MIN_OVERLAP} characters)`,
      );
    }
  }
  // A step that does not continue (or a request it answered whole) sent one of the scripts' texts.
  const answers = answer !== undefined ? [answer] : wholeAnswers;
  if (!answers.some((a) => published(a).startsWith(text))) {
    v(
      `${where} delivered ${JSON.stringify(text)}, not what the provider sent after ${trimmed} trimmed ` +
        `characters (${answers.map((a) => JSON.stringify(a)).join(' or ')})`,
    );
    return;
  }
  // A whole answer: the attempt delivered all of it past the head.
  if (
    answer !== undefined &&
    asked !== undefined &&
    r.outcome === 'succeeded' &&
    text !== published(answer)
  ) {
    v(`${where} answered ${JSON.stringify(answer)} but delivered ${JSON.stringify(text)}`);
  }
}
