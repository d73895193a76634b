/**
 * Continuing a cut stream: how an attempt asks the model to go on from the text earlier attempts delivered
 * (`stream-gate.ts` decides what of the model's answer is published, so that every character reaches the caller once).
 *
 * - **The form.** A prefill (the delivered text as the start of the assistant's answer) where the model takes one
 *   (`prefill: true` in the providers file) and the request asks for no extended thinking (a thinking model's
 *   answer must begin with its thinking, so the API refuses or ignores a prefill); an instruction otherwise (the
 *   delivered text as the assistant's answer, then a user message asking to continue it).
 *
 * Characters are counted in UTF-16 code units (JavaScript's `length`), as the stream's text is.
 *
 * Pure: no I/O.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ContinuationFacts } from '../../common/attempt.js';

/** The form of a continuation request. */
export type ContinuationForm = ContinuationFacts['form'];

/** How many of the delivered text's last characters the head of an instructed continuation is compared with. */
export const OVERLAP_WINDOW = 200;

/** The shortest repeat of the delivered text's end that is left out (a shorter match may be a coincidence). */
export const MIN_OVERLAP = 20;

/**
 * What the model is told after the delivered text when it gets no prefill. Plain and specific: where to start
 * (the very next character, mid-word or mid-sentence), what not to do (repeat, summarise, comment, restart), and
 * what to do when nothing is missing (an empty answer is taken as "the answer was whole").
 */
export const CONTINUE_INSTRUCTION =
  'Your previous answer was cut off before it was complete. Continue it from exactly where it stopped: begin ' +
  'with the very next character (in the middle of a word or a sentence if that is where it stopped, with the ' +
  'space or line break that comes next if one does), keep the same language, format and style, and finish the ' +
  'answer. Do not repeat any of the text already written, do not start over, and add no preamble, comment or ' +
  'note about the interruption. If the answer was already complete, reply with nothing.';

/** What of a request says whether it asks for extended thinking (its call options, or their wire form). */
export interface ThinkingOptions {
  reasoning?: string;
  providerOptions?: Readonly<Record<string, unknown>>;
}

/** Reasoning settings that ask for no reasoning (or leave it to the provider's default). */
const NO_REASONING: ReadonlySet<string | undefined> = new Set([undefined, 'provider-default', 'none']);

/**
 * Whether the request asks for extended thinking: a `reasoning` setting other than absent, `provider-default` or
 * `none`, or any provider's options with `thinking: { type: 'enabled' | 'adaptive' }` (Anthropic's shape, under
 * whatever provider key the request uses).
 */
export function asksForThinking(options: ThinkingOptions): boolean {
  if (!NO_REASONING.has(options.reasoning)) return true;
  return Object.values(options.providerOptions ?? {}).some((byProvider) => {
    const thinking = (byProvider as { thinking?: unknown } | undefined)?.thinking;
    const type = (thinking as { type?: unknown } | null | undefined)?.type;
    return type === 'enabled' || type === 'adaptive';
  });
}

/** The delivered text split for a prefill: what is sent, and the trailing whitespace moved out of it. */
export function splitForPrefill(text: string): { prefill: string; movedOut: string } {
  const prefill = text.trimEnd();
  return { prefill, movedOut: text.slice(prefill.length) };
}

/**
 * The form to ask with: a prefill only for a model marked `prefill`, a request without extended thinking, and a
 * delivered text that is not all whitespace (an empty prefill is no prefill); an instruction otherwise.
 */
export function continuationForm(prefill: boolean, options: ThinkingOptions, text: string): ContinuationForm {
  if (!prefill || asksForThinking(options)) return 'instruction';
  return splitForPrefill(text).prefill === '' ? 'instruction' : 'prefill';
}

/**
 * The continuation's prompt: the original, then the delivered text as the assistant's answer (a prefill: without
 * its trailing whitespace, and last), then, for an instruction, a user message asking to continue it. Nothing of
 * the cut attempts' reasoning is sent: the continuation starts from the delivered text.
 */
export function continuationPrompt(
  prompt: LanguageModelV4Prompt,
  text: string,
  form: ContinuationForm,
): LanguageModelV4Prompt {
  if (form === 'prefill') {
    return [
      ...prompt,
      { role: 'assistant', content: [{ type: 'text', text: splitForPrefill(text).prefill }] },
    ];
  }
  return [
    ...prompt,
    { role: 'assistant', content: [{ type: 'text', text }] },
    { role: 'user', content: [{ type: 'text', text: CONTINUE_INSTRUCTION }] },
  ];
}

/** The length of the longest common prefix of `a` and `b`. */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i += 1;
  return i;
}

/**
 * How many characters of an instructed continuation's `head` repeat the delivered text: the longest suffix of the
 * last {@link OVERLAP_WINDOW} characters of `delivered` that is a prefix of `head`, when at least
 * {@link MIN_OVERLAP} long; else 0.
 */
export function overlapToTrim(delivered: string, head: string): number {
  const window = delivered.slice(-OVERLAP_WINDOW);
  for (let k = Math.min(window.length, head.length); k >= MIN_OVERLAP; k -= 1) {
    if (window.endsWith(head.slice(0, k))) return k;
  }
  return 0;
}

/** How much head an instructed continuation buffers before it decides: the window, or all of a shorter text. */
export function headToDecide(delivered: string): number {
  return Math.min(OVERLAP_WINDOW, delivered.length);
}
