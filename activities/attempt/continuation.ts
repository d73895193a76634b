/**
 * Continuing a cut stream: how an attempt asks the model to go on from the text earlier attempts delivered, and
 * what of the model's answer it publishes, so that every character reaches the caller once.
 *
 * - **The form.** A prefill (the delivered text as the start of the assistant's answer) where the model takes one
 *   (`prefill: true` in the providers file) and the request asks for no extended thinking (a thinking model's
 *   answer must begin with its thinking, so the API refuses or ignores a prefill); an instruction otherwise (the
 *   delivered text as the assistant's answer, then a user message asking to continue it).
 * - **What is published.** With a prefill, everything the model sends, except that the whitespace moved out of
 *   the prefill (the APIs refuse or strip a prefill that ends with whitespace) is not sent twice: the
 *   continuation's head loses the longest common prefix of that whitespace and itself ("Hello " + prefill "Hello"
 *   + " world" publishes "world"). With an instruction, the continuation's head is held until it can be decided
 *   (as long as the window below, a part other than text, or the end), then the longest suffix of the last
 *   {@link OVERLAP_WINDOW} delivered characters that is a prefix of the head is left out if it is at least
 *   {@link MIN_OVERLAP} characters long. Nothing else is left out: a preamble or a restart is published as sent
 *   (each character is delivered once; whether the model wrote it twice is the model's).
 * - **Tool input** (with `onCut: 'continue'`, continuing or not): a tool call's input parts are held and published
 *   together with its complete tool call, so a cut inside a tool call delivered nothing of it.
 *
 * Characters are counted in UTF-16 code units (JavaScript's `length`), as the stream's text is.
 *
 * Pure: no I/O. `stream-answer.ts` passes each streamed part through a {@link StreamGate}.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
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

type Part = LanguageModelV4StreamPart;
type TextDelta = Extract<Part, { type: 'text-delta' }>;

/** The head rule of a continuation: what of each text delta is published. */
interface HeadRule {
  /** The text of `delta` to publish now; `undefined` while the head is held. */
  push(delta: string): string | undefined;
  /** Decides with what is held: the text to publish (held text, less its repeat). */
  decide(): string;
  readonly decided: boolean;
  readonly trimmed: number;
}

/** A prefill's head: drops the characters that repeat the moved-out whitespace, one by one as they come. */
class PrefillHead implements HeadRule {
  private matched = 0;
  private done: boolean;
  constructor(private readonly movedOut: string) {
    this.done = movedOut === '';
  }
  push(delta: string): string {
    if (this.done) return delta;
    let i = 0;
    while (
      i < delta.length &&
      this.matched < this.movedOut.length &&
      delta[i] === this.movedOut[this.matched]
    ) {
      i += 1;
      this.matched += 1;
    }
    if (i < delta.length || this.matched === this.movedOut.length) this.done = true;
    return delta.slice(i);
  }
  decide(): string {
    this.done = true;
    return '';
  }
  get decided(): boolean {
    return this.done;
  }
  get trimmed(): number {
    return this.matched;
  }
}

/** An instruction's head: held until decidable, then its repeat of the delivered text's end left out. */
class InstructionHead implements HeadRule {
  private held = '';
  private done = false;
  private cut = 0;
  constructor(private readonly delivered: string) {}
  push(delta: string): string | undefined {
    if (this.done) return delta;
    this.held += delta;
    return this.held.length >= headToDecide(this.delivered) ? this.decide() : undefined;
  }
  decide(): string {
    if (this.done) return '';
    this.done = true;
    this.cut = overlapToTrim(this.delivered, this.held);
    const out = this.held.slice(this.cut);
    this.held = '';
    return out;
  }
  get decided(): boolean {
    return this.done;
  }
  get trimmed(): number {
    return this.cut;
  }
}

/** What a {@link StreamGate} applies. */
export interface GateOptions {
  /** The attempt continues this delivered text, asking in this form. */
  continuation?: { text: string; form: ContinuationForm };
  /** Hold each tool call's input parts until the tool call is complete (`onCut: 'continue'`). */
  holdToolInput?: boolean;
}

/** Parts that come before or beside an answer's text and never decide a held head. */
const BESIDE_TEXT: ReadonlySet<Part['type']> = new Set([
  'text-start',
  'stream-start',
  'response-metadata',
  'raw',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
]);

const TOOL_INPUT: ReadonlySet<Part['type']> = new Set([
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
]);

/**
 * What of a streamed answer is published, and in what order: each part pushed in gives the parts to publish (and
 * to count into the answer) now. Without options it passes every part as it comes.
 */
export class StreamGate {
  private readonly head: HeadRule | undefined;
  /** The held head's text delta: its id and latest metadata. */
  private heldDelta: Omit<TextDelta, 'delta'> | undefined;
  /** Tool input parts by tool call id, in order. */
  private readonly toolInput = new Map<string, Part[]>();

  constructor(private readonly options: GateOptions = {}) {
    const c = options.continuation;
    if (c === undefined) this.head = undefined;
    else if (c.form === 'prefill') this.head = new PrefillHead(splitForPrefill(c.text).movedOut);
    else this.head = new InstructionHead(c.text);
  }

  /** Characters of the continuation's head left out so far. */
  get trimmed(): number {
    return this.head?.trimmed ?? 0;
  }

  /** The parts to publish now for `part`. */
  push(part: Part): Part[] {
    const out: Part[] = [];
    const head = this.head;
    if (head !== undefined && !head.decided) {
      if (part.type === 'text-delta' && (this.heldDelta === undefined || this.heldDelta.id === part.id)) {
        const { delta: _delta, ...rest } = part;
        this.heldDelta = rest;
        const text = head.push(part.delta);
        if (text !== undefined) this.releaseHead(text, out);
        return out;
      }
      // Once some of the head is held, a part other than its text (its end, another text, a tool) decides it
      // first; the finish always does. Parts before any text (a provider's `custom` start, sources) do not: the
      // head is the start of the text.
      const decides = part.type === 'finish' || (this.heldDelta !== undefined && !BESIDE_TEXT.has(part.type));
      if (decides) this.releaseHead(head.decide(), out);
    }
    this.pass(part, out);
    return out;
  }

  /** The held head's text (less its repeat) as one delta, when there is some. */
  private releaseHead(text: string, out: Part[]): void {
    const held = this.heldDelta;
    if (held !== undefined && text !== '') out.push({ ...held, delta: text });
  }

  /** A part past the head: held when it is a tool's input, else published (with the tool input it completes). */
  private pass(part: Part, out: Part[]): void {
    if (this.options.holdToolInput !== true) {
      out.push(part);
      return;
    }
    if (TOOL_INPUT.has(part.type)) {
      const id = (part as { id: string }).id;
      const held = this.toolInput.get(id) ?? [];
      held.push(part);
      this.toolInput.set(id, held);
      return;
    }
    if (part.type === 'tool-call') {
      out.push(...(this.toolInput.get(part.toolCallId) ?? []));
      this.toolInput.delete(part.toolCallId);
    }
    out.push(part);
  }
}

/**
 * A whole (not streamed) answer that continues a text, by the same head rule as a stream (`gate`, fresh): its first
 * text part less what the rule leaves out. The gate then says how much that was.
 */
export function continuedAnswer(
  result: LanguageModelV4GenerateResult,
  gate: StreamGate,
): LanguageModelV4GenerateResult {
  const first = result.content.findIndex((part) => part.type === 'text');
  if (first < 0) return result;
  const part = result.content[first] as Extract<LanguageModelV4Content, { type: 'text' }>;
  const passed = [
    ...gate.push({ type: 'text-delta', id: 'whole', delta: part.text }),
    ...gate.push({ type: 'text-end', id: 'whole' }),
  ];
  const text = passed.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
  const content = result.content.map((c, i) => (i === first ? { ...part, text } : c));
  return { ...result, content };
}
