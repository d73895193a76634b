/**
 * When two answers asked for the same tools: the same names with the same arguments, compared as parsed JSON, in
 * any order. The ids are the provider's own and never compared. Order is ignored because the calls of one answer
 * are run side by side (a turn runs them in parallel), so a model that lists them in another order asked for the
 * same work.
 */
import type { ToolCall } from './attempt.js';

/**
 * A tool call's arguments as canonical JSON: parsed, object keys sorted at every depth, so that `{"a":1,"b":2}`
 * and `{ "b": 2, "a": 1.0 }` read the same. Empty arguments are `{}` (some providers send '' for a call without
 * any); arguments that are not JSON are kept as they came, trimmed.
 */
export function canonicalToolArgs(args: string): string {
  const trimmed = args.trim();
  if (trimmed === '') return '{}';
  try {
    return JSON.stringify(sortKeys(JSON.parse(trimmed)));
  } catch {
    return trimmed;
  }
}

/** A tool call's name and canonical arguments in one string: two calls asked the same when their keys are equal. */
export function toolCallKey(call: Pick<ToolCall, 'name' | 'args'>): string {
  return `${call.name}(${canonicalToolArgs(call.args)})`;
}

/** Whether two answers asked for the same tool calls: as many of each name and arguments, in any order. */
export function sameToolCalls(a: readonly ToolCall[], b: readonly ToolCall[]): boolean {
  if (a.length !== b.length) return false;
  const left = a.map(toolCallKey).sort();
  const right = b.map(toolCallKey).sort();
  return left.every((key, i) => key === right[i]);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
