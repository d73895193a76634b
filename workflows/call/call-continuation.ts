import type { FailedAttemptFacts } from '../../policy/index.js';
import type { AttemptContinuation, ContinuationFacts, Usage } from '../../common/attempt.js';
import type { AttemptRecord, ModelCallResult } from '../../common/call.js';
import type { WireContent } from '../../common/request.js';

/**
 * What a call that continues cut streams (`stream.onCut: 'continue'`) has delivered so far: the text of its cut
 * attempts, in order, from the workflow's own stream log (so it survives the loss of any worker), and which attempt
 * was cut last. The next attempt continues it; the answer that ends the call is joined to it.
 */
export class DeliveredText {
  private delivered = '';
  private lastCut: string | undefined;
  /** The attempts whose text is part of the answer so far. */
  private readonly parts = new Set<string>();
  /** The backends (`provider:model`) that refused a prefill: they are asked with an instruction. */
  private readonly refusedPrefill = new Set<string>();

  /** Every character delivered by the cut attempts so far ('' when none). */
  get text(): string {
    return this.delivered;
  }

  /** Attempt `record` failed (or was lost) after delivering `text`. */
  add(record: AttemptRecord, text: string): void {
    if (text === '') return;
    this.delivered += text;
    this.lastCut = record.modelCallId;
    this.parts.add(record.modelCallId);
  }

  /** What the next attempt, on `model`, continues, when anything was delivered. */
  continuation(model: string): AttemptContinuation | undefined {
    if (this.delivered === '' || this.lastCut === undefined) return undefined;
    const form = this.refusedPrefill.has(model) ? { form: 'instruction' as const } : {};
    return { text: this.delivered, continues: this.lastCut, ...form };
  }

  /**
   * A continuation that asked with a prefill and met a 400 (`BadRequest`): the model does not take prefills. The
   * first time for a backend, the attempt's facts ask to retry it at once (as `x-should-retry: true` would), and
   * the next attempt there asks with an instruction; a 400 to the instruction too is the plan's to decide.
   */
  refusePrefill(
    model: string,
    continuation: ContinuationFacts | undefined,
    facts: FailedAttemptFacts,
  ): FailedAttemptFacts {
    if (continuation?.form !== 'prefill' || facts.class !== 'BadRequest') return facts;
    if (this.refusedPrefill.has(model)) return facts;
    this.refusedPrefill.add(model);
    return { ...facts, shouldRetry: 'retry-same' };
  }

  /**
   * The answer of the attempt that ended the call, joined to what the cut attempts delivered: its text and its
   * first text part start with the delivered text, and its usage is the sum over every attempt whose text it holds.
   */
  joined(result: ModelCallResult): ModelCallResult {
    if (this.delivered === '') return result;
    const { output } = result;
    const usage = sumUsage(
      result.attempts.filter((r) => this.parts.has(r.modelCallId) || r.modelCallId === lastId(result)),
    );
    return {
      ...result,
      output: {
        ...output,
        text: this.delivered + output.text,
        ...(output.content !== undefined ? { content: prependText(output.content, this.delivered) } : {}),
      },
      ...(usage !== undefined ? { usage } : {}),
    };
  }
}

function lastId(result: ModelCallResult): string | undefined {
  return result.attempts.at(-1)?.modelCallId;
}

/** The content with `text` before its first text part's text (a new text part first when it has none). */
function prependText(content: WireContent[], text: string): WireContent[] {
  const at = content.findIndex((part) => part.type === 'text');
  if (at === -1) return [{ type: 'text', text } as WireContent, ...content];
  return content.map((part, i) =>
    i === at && part.type === 'text' ? ({ ...part, text: text + part.text } as WireContent) : part,
  );
}

const USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'cachedInputTokens',
  'cacheWriteInputTokens',
  'reasoningTokens',
] as const;

/** The attempts' usage summed field by field; a field none reported stays absent. */
export function sumUsage(records: readonly AttemptRecord[]): Usage | undefined {
  const sum: Usage = {};
  let any = false;
  for (const record of records) {
    for (const field of USAGE_FIELDS) {
      const value = record.usage?.[field];
      if (value === undefined) continue;
      sum[field] = (sum[field] ?? 0) + value;
      any = true;
    }
  }
  return any ? sum : undefined;
}
