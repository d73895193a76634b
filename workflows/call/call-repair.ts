import type { Decision } from '../../policy/index.js';
import type { ChatMessage, SchemaMismatchFacts } from '../../common/attempt.js';

/**
 * The correction a repair appends to the conversation: the bad answer as the assistant's turn, then a user turn
 * with what the validator said. Built here, in workflow code, from the failure's details, so the repair's input in
 * the history is exactly what the provider was sent (and is the same on replay).
 */
export function correctionOf(mismatch: SchemaMismatchFacts): ChatMessage[] {
  const errors = mismatch.errors.map((e) => `- ${e}`).join('\n');
  return [
    { role: 'assistant', content: mismatch.answer },
    {
      role: 'user',
      content:
        'Your answer does not match the required JSON Schema. The validator says:\n' +
        `${errors}\n` +
        'Answer again with only the corrected JSON value.',
    },
  ];
}

/**
 * The corrections of one call: appended by each `repair`, kept across a same-backend retry (the repair's request
 * was not answered), and cleared when another backend or a new round is tried (its repair count restarts), so
 * another backend gets the original request.
 */
export class Corrections {
  private added: ChatMessage[] = [];
  private pending: SchemaMismatchFacts | undefined;

  /** Notes what the attempt that just failed said about its answer (nothing for other failures). */
  note(mismatch: SchemaMismatchFacts | undefined): ChatMessage[] {
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
  messages(original: ChatMessage[]): ChatMessage[] {
    return this.added.length === 0 ? original : [...original, ...this.added];
  }
}
