/**
 * The totals per model of a rerun: plain arithmetic over its pairs, safe in the workflow sandbox (the rerun
 * workflow fills its report's totals with it) and used again by the reports.
 */
import type { RerunAnswer, RerunModelTotals, RerunPair } from './rerun.js';
import { sameToolCalls } from './tool-call-compare.js';

/** The name the recorded answers go by in the totals. */
export const ORIGINAL = 'original';

/**
 * One row per model: the originals first (as `original`), then each candidate in the order given. A pair counts
 * toward a model when it holds that model's answer. Tokens and cost are summed over every answer that reported them
 * (a failed call's attempts were billed too) and absent when none did; latency is over the succeeded answers only.
 * `sameText` and `sameToolCalls` count the answers that succeeded where the original succeeded too and match it
 * (a failure matches nothing, not even another failure's empty text); for `original` they count its succeeded
 * answers, each the same as itself.
 */
export function rerunTotals(pairs: readonly RerunPair[], models: readonly string[]): RerunModelTotals[] {
  const originals = pairs.map((p) => ({ answer: p.original, original: p.original }));
  const rows = [totalsOf(ORIGINAL, originals)];
  models.forEach((model, i) => {
    const answers = pairs.flatMap((p) => {
      const answer = candidateOf(p, model, i);
      return answer ? [{ answer, original: p.original }] : [];
    });
    rows.push(totalsOf(model, answers));
  });
  return rows;
}

/** The pair's answer from `model`: the one at its place in the given order, else the first of that model. */
export function candidateOf(pair: RerunPair, model: string, index: number): RerunAnswer | undefined {
  const placed = pair.candidates[index];
  if (placed?.model === model) return placed;
  return pair.candidates.find((c) => c.model === model);
}

/** Whether a candidate answered and its text equals the original's, which answered too. */
export function sameTextAs(answer: RerunAnswer, original: RerunAnswer): boolean {
  return bothSucceeded(answer, original) && answer.text === original.text;
}

/** Whether a candidate answered and asked for the same tool calls as the original, which answered too. */
export function sameToolCallsAs(answer: RerunAnswer, original: RerunAnswer): boolean {
  return bothSucceeded(answer, original) && sameToolCalls(answer.toolCalls, original.toolCalls);
}

function bothSucceeded(a: RerunAnswer, b: RerunAnswer): boolean {
  return a.outcome === 'succeeded' && b.outcome === 'succeeded';
}

function totalsOf(
  model: string,
  answers: { answer: RerunAnswer; original: RerunAnswer }[],
): RerunModelTotals {
  const all = answers.map((a) => a.answer);
  const latencies = all
    .filter((a) => a.outcome === 'succeeded' && a.latencyMs !== undefined)
    .map((a) => a.latencyMs as number)
    .sort((x, y) => x - y);
  const row: RerunModelTotals = {
    model,
    requests: all.length,
    succeeded: all.filter((a) => a.outcome === 'succeeded').length,
    failed: all.filter((a) => a.outcome === 'failed').length,
    sameText: answers.filter((a) => sameTextAs(a.answer, a.original)).length,
    sameToolCalls: answers.filter((a) => sameToolCallsAs(a.answer, a.original)).length,
  };
  const inputTokens = sumOf(all.map((a) => a.usage?.inputTokens));
  const outputTokens = sumOf(all.map((a) => a.usage?.outputTokens));
  const costUsd = sumOf(all.map((a) => a.costUsd));
  if (inputTokens !== undefined) row.inputTokens = inputTokens;
  if (outputTokens !== undefined) row.outputTokens = outputTokens;
  if (costUsd !== undefined) row.costUsd = costUsd;
  if (latencies.length > 0) {
    row.meanLatencyMs = latencies.reduce((s, l) => s + l, 0) / latencies.length;
    row.medianLatencyMs = median(latencies);
  }
  return row;
}

/** The sum of the values given, or undefined when none was. */
function sumOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : known.reduce((s, v) => s + v, 0);
}

/** The middle of sorted values; the mean of the two middle ones for an even count. */
function median(sorted: number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
