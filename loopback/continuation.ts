import type { AssistantTail } from './format.js';
import { CONTINUE_PREAMBLE, CONTINUE_REPEAT_DEFAULTS } from './steps.js';
import type { OkStep } from './steps.js';

/** What a request asked to continue: the text it delivered, and how it asked. */
export interface RequestContinuation {
  /** The text of the request's last assistant message, as received (a prefill's has no trailing whitespace). */
  delivered: string;
  /** `prefill`: that message ends the request; `instruction`: a message (the instruction) follows it. */
  form: 'prefill' | 'instruction';
}

/** The continuation a request asks for, from its last assistant message; none when that has no text. */
export function continuationOf(tail: AssistantTail | undefined): RequestContinuation | undefined {
  if (tail === undefined || tail.text === '') return undefined;
  return { delivered: tail.text, form: tail.last ? 'prefill' : 'instruction' };
}

/**
 * The plain `ok` step that answers `step`'s `continues` for a request: its text is the rest of the meant text after
 * the delivered one, bent by the mode; the whole meant text when nothing was delivered. Other steps are returned
 * as they are. Without a usage given, the input tokens count the delivered text too (a continuation's prompt
 * carries it).
 */
export function answerContinuation(step: OkStep, seen: RequestContinuation | undefined): OkStep {
  const spec = step.continues;
  if (spec === undefined) return step;
  const { continues: _, ...rest } = step;
  if (seen === undefined) return { ...rest, text: spec.text };
  const delivered = seen.delivered;
  const after = spec.text.slice(deliveredEnd(spec.text, delivered));
  const mode = spec.mode ?? 'exact';
  let text: string;
  switch (mode) {
    case 'exact':
      text = after;
      break;
    case 'repeat-little':
    case 'repeat-lot': {
      const n = Math.min(spec.repeatChars ?? CONTINUE_REPEAT_DEFAULTS[mode], delivered.length);
      text = delivered.slice(delivered.length - n) + after;
      break;
    }
    case 'restart':
      text = spec.text;
      break;
    case 'preamble':
      text = CONTINUE_PREAMBLE + after;
      break;
    case 'nothing':
      text = '';
      break;
  }
  const inputTokens = step.usage?.inputTokens ?? 10 + Math.ceil(delivered.length / 4);
  return { ...rest, text, usage: { ...step.usage, inputTokens } };
}

/**
 * Where in `meant` the delivered text ends: after it when `meant` starts with it; otherwise (an earlier
 * continuation bent it: a preamble, a restart) after the longest end of it that occurs in `meant`; 0 when not
 * even its last character does.
 */
export function deliveredEnd(meant: string, delivered: string): number {
  if (meant.startsWith(delivered)) return delivered.length;
  for (let k = Math.min(delivered.length, meant.length); k > 0; k -= 1) {
    const at = meant.indexOf(delivered.slice(delivered.length - k));
    if (at !== -1) return at + k;
  }
  return 0;
}
