/**
 * The totals per model of a rerun's pairs (`RerunModelTotals`): the originals' as `original`, then each candidate
 * model's in the order given. Pure and workflow-safe: the rerun workflow computes them for its result.
 */
import type { ToolCall } from './attempt.js';
import type { RerunAnswer, RerunModelTotals, RerunPair } from './rerun.js';

export function rerunTotals(pairs: readonly RerunPair[], models: readonly string[]): RerunModelTotals[] {
  const originals = pairs.map((p) => ({ answer: p.original, original: p.original }));
  const out = [totalsOf('original', originals)];
  for (const model of models) {
    const answers = pairs.flatMap((p) => {
      const answer = p.candidates.find((c) => c.model === model);
      return answer ? [{ answer, original: p.original }] : [];
    });
    out.push(totalsOf(model, answers));
  }
  return out;
}

function totalsOf(
  model: string,
  answers: readonly { answer: RerunAnswer; original: RerunAnswer }[],
): RerunModelTotals {
  const sum = (pick: (a: RerunAnswer) => number | undefined): number | undefined => {
    let total: number | undefined;
    for (const { answer } of answers) {
      const v = pick(answer);
      if (v !== undefined) total = (total ?? 0) + v;
    }
    return total;
  };
  const latencies = answers
    .filter(({ answer }) => answer.outcome === 'succeeded' && answer.latencyMs !== undefined)
    .map(({ answer }) => answer.latencyMs as number)
    .sort((a, b) => a - b);
  const inputTokens = sum((a) => a.usage?.inputTokens);
  const outputTokens = sum((a) => a.usage?.outputTokens);
  const costUsd = sum((a) => a.costUsd);
  return {
    model,
    requests: answers.length,
    succeeded: answers.filter(({ answer }) => answer.outcome === 'succeeded').length,
    failed: answers.filter(({ answer }) => answer.outcome === 'failed').length,
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(latencies.length > 0
      ? {
          meanLatencyMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
          medianLatencyMs: median(latencies),
        }
      : {}),
    sameText: answers.filter(({ answer, original }) => answer.text === original.text).length,
    sameToolCalls: answers.filter(({ answer, original }) =>
      sameToolCalls(answer.toolCalls, original.toolCalls),
    ).length,
  };
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Same tool calls: the same names with the same parsed arguments, in order (ids differ between runs). */
export function sameToolCalls(a: readonly ToolCall[], b: readonly ToolCall[]): boolean {
  return a.length === b.length && a.every((call, i) => sameCall(call, b[i] as ToolCall));
}

function sameCall(a: ToolCall, b: ToolCall): boolean {
  return a.name === b.name && canonical(a.args) === canonical(b.args);
}

/** JSON text with its object keys sorted (unparseable text as it is). */
function canonical(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
    });
  return out;
}
