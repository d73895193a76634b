import type { AttemptRecord, BilledTotals } from '../call.js';

/** What the provider billed across every attempt that reported usage or cost. */
export function billedTotals(records: readonly AttemptRecord[]): BilledTotals {
  const totals: BilledTotals = { attempts: records.length };
  const add = (key: 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cost', value: number | undefined) => {
    if (value !== undefined) totals[key] = (totals[key] ?? 0) + value;
  };
  for (const r of records) {
    add('inputTokens', r.usage?.inputTokens);
    add('outputTokens', r.usage?.outputTokens);
    add('totalTokens', r.usage?.totalTokens);
    add('cost', r.cost);
  }
  return totals;
}
