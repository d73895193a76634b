/**
 * What of a continuing (or tool-calling) attempt's answer is published, so that every character reaches the caller
 * once (`continuation.ts` says how the attempt asks).
 *
 * - **What is published.** With a prefill, everything the model sends, except that the whitespace moved out of
 *   the prefill (the APIs refuse or strip a prefill that ends with whitespace) is not sent twice: the
 *   continuation's head loses the longest common prefix of that whitespace and itself ("Hello " + prefill "Hello"
 *   + " world" publishes "world"). With an instruction, the continuation's head is held until it can be decided
 *   (as long as the window, a part other than text, or the end), then the longest suffix of the last
 *   `OVERLAP_WINDOW` delivered characters that is a prefix of the head is left out if it is at least
 *   `MIN_OVERLAP` characters long. Nothing else is left out: a preamble or a restart is published as sent
 *   (each character is delivered once; whether the model wrote it twice is the model's).
 * - **Tool calls** (with `onCut: 'continue'`, continuing or not): from the first tool part on, the answer is held and
 *   published with its finish, so a cut before the finish delivered nothing of its tool calls (the next attempt,
 *   which continues only text, asks for them whole).
 *
 * Characters are counted in UTF-16 code units (JavaScript's `length`), as the stream's text is.
 *
 * Pure: no I/O. `stream-answer.ts` passes each streamed part through a {@link StreamGate}.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { headToDecide, overlapToTrim, splitForPrefill } from './continuation.js';
import type { ContinuationForm } from './continuation.js';

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
  /** Hold tool calls (their input, and what follows them) until the answer's finish (`onCut: 'continue'`). */
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
  /** Under `holdToolInput`: every part from the first tool part on, in order, until the finish. */
  private held: Part[] | undefined;

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

  /**
   * A part past the head. Under `holdToolInput`, from the first tool part on (a tool's input, a tool call)
   * everything is held, in order, and published with the finish: a continuation carries only text, so a tool call
   * published before a cut would be asked for again and reach subscribers twice. A stream cut before its finish
   * delivered nothing of its tool calls.
   */
  private pass(part: Part, out: Part[]): void {
    if (this.options.holdToolInput !== true) {
      out.push(part);
      return;
    }
    if (this.held === undefined && (TOOL_INPUT.has(part.type) || part.type === 'tool-call')) this.held = [];
    if (this.held === undefined) {
      out.push(part);
      return;
    }
    this.held.push(part);
    if (part.type !== 'finish') return;
    out.push(...this.held);
    this.held = undefined;
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
