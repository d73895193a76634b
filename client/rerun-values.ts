/**
 * How a rerun's values read, the same in the command line's text and the HTML report: where a request came from,
 * an answer's outcome, tokens, cost and latency, and how its text and tool calls compare with the original's.
 */
import type { RerunAnswer, RerunSource } from '../common/rerun.js';
import { sameToolCallsAs } from '../common/rerun-totals.js';
import { canonicalToolArgs } from '../common/tool-call-compare.js';
import { human } from './timeline-axis.js';
import { diffWordCounts } from './word-diff.js';
import type { DiffRun } from './word-diff.js';

/** `c2 of wf-abc` (with `step 3` for an agent turn's step). */
export function sourceText(source: RerunSource): string {
  return `${source.callId}${source.step !== undefined ? ` step ${source.step}` : ''} of ${source.workflowId}`;
}

/** `succeeded (stop)`, or `failed: RateLimited, attempts-exhausted`. */
export function outcomeText(answer: RerunAnswer): string {
  if (answer.outcome === 'succeeded')
    return `succeeded${answer.finishReason ? ` (${answer.finishReason})` : ''}`;
  const why = [answer.failureClass, answer.stopReason].filter(Boolean).join(', ');
  return `failed${why ? `: ${why}` : ''}`;
}

/** The most of a failure's message a report shows. */
export const MAX_REPORT_MESSAGE_CHARS = 300;

/** Why a failed answer failed, in its own words, whitespace collapsed and cut; '' when it has no message. */
export function messageText(answer: Pick<RerunAnswer, 'message'>): string {
  const text = (answer.message ?? '').replace(/\s+/g, ' ').trim();
  return text.length <= MAX_REPORT_MESSAGE_CHARS ? text : `${text.slice(0, MAX_REPORT_MESSAGE_CHARS - 1)}…`;
}

/** Where a text cut from the report is whole: '' when it was not cut. */
export function textCutText(answer: Pick<RerunAnswer, 'textCut' | 'workflowId'>): string {
  return answer.textCut
    ? `text cut in this report; the whole text is in the history of ${answer.workflowId}`
    : '';
}

/** `in 120 / out 45 tokens`, or '' when the answer reported none. */
export function tokensText(answer: Pick<RerunAnswer, 'usage'>): string {
  return tokenPair(answer.usage?.inputTokens, answer.usage?.outputTokens);
}

export function tokenPair(input: number | undefined, output: number | undefined): string {
  if (input === undefined && output === undefined) return '';
  return `in ${input ?? '?'} / out ${output ?? '?'} tokens`;
}

/** `$0.00123` (four significant digits), or '' when the model has no price. */
export function costText(costUsd: number | undefined): string {
  return costUsd === undefined ? '' : `$${Number(costUsd.toPrecision(4))}`;
}

export function latencyText(latencyMs: number | undefined): string {
  return latencyMs === undefined ? '' : human(latencyMs);
}

/** `name({"a":1})` with the arguments as parsed JSON in canonical form. */
export function toolCallText(call: { name: string; args: string }): string {
  return `${call.name}(${canonicalToolArgs(call.args)})`;
}

/** How a candidate's text compares: `same text`, `3 words removed, 5 added (80% kept)`, or nothing to compare. */
export function textChangeText(
  runs: readonly DiffRun[],
  candidate: RerunAnswer,
  original: RerunAnswer,
): string {
  if (candidate.outcome === 'failed') return 'no answer to compare';
  if (original.outcome === 'failed') return 'the original has no answer';
  // A text cut from the report would compare as a change: its histories hold the whole ones.
  if (candidate.textCut || original.textCut)
    return 'text cut in this report: compare the whole texts in the histories';
  if (candidate.text === original.text) return 'same text';
  const counts = diffWordCounts(runs);
  const before = counts.equal + counts.removed;
  const kept = before === 0 ? '' : ` (${Math.round((counts.equal / before) * 100)}% of the words kept)`;
  return `${counts.removed} word${counts.removed === 1 ? '' : 's'} removed, ${counts.added} added${kept}`;
}

/** `same tool calls`, `other tool calls`, or '' when neither asked for one or one did not answer. */
export function toolChangeText(candidate: RerunAnswer, original: RerunAnswer): string {
  if (candidate.outcome === 'failed' || original.outcome === 'failed') return '';
  if (candidate.toolCalls.length === 0 && original.toolCalls.length === 0) return '';
  return sameToolCallsAs(candidate, original) ? 'same tool calls' : 'other tool calls';
}
