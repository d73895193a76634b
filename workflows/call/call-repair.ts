import type { Decision } from '../../policy/index.js';
import type { SchemaMismatchFacts } from '../../common/attempt.js';
import type { WireMessage } from '../../common/request.js';

/**
 * The correction a repair appends to the conversation: the bad answer as the assistant's turn, then a user turn
 * with what the validator said. Built here, in workflow code, from the failure's details, so the repair's input in
 * the history is exactly what the provider was sent (and is the same on replay).
 */
export function correctionOf(mismatch: SchemaMismatchFacts): WireMessage[] {
  const errors = mismatch.errors.map((e) => `- ${e}`).join('\n');
  const text =
    'Your answer does not match the required JSON Schema. The validator says:\n' +
    `${errors}\n` +
    'Answer again with only the corrected JSON value.';
  return [
    { role: 'assistant', content: [{ type: 'text', text: mismatch.answer }] },
    { role: 'user', content: [{ type: 'text', text }] },
  ];
}

/**
 * The corrections of one call: appended by each `repair`, kept across a same-backend retry (the repair's request
 * was not answered), and cleared when another backend or a new round is tried (its repair count restarts), so
 * another backend gets the original request.
 */
export class Corrections {
  private added: WireMessage[] = [];
  private pending: SchemaMismatchFacts | undefined;

  /** Notes what the attempt that just failed said about its answer (nothing for other failures). */
  note(mismatch: SchemaMismatchFacts | undefined): WireMessage[] {
    this.pending = mismatch;
    return mismatch ? correctionOf(mismatch) : [];
  }

  /** Applies the decision that follows the noted attempt. */
  follow(decision: Decision): void {
    if (decision.kind !== 'attempt') return;
    if (decision.action === 'repair' && this.pending) this.added.push(...correctionOf(this.pending));
    else if ((decision.state.repairs ?? 0) === 0) this.added = [];
    this.pending = undefined;
  }

  /** Whether the next attempt carries corrections. */
  get carried(): boolean {
    return this.added.length > 0;
  }

  /** The conversation of the next attempt. */
  messages(original: WireMessage[]): WireMessage[] {
    return this.added.length === 0 ? original : [...original, ...this.added];
  }
}
