import type { Budget } from '../policy/index.js';
import { UsageError } from './args.js';

/** `parseArgs` options of the budget flags (`call` and `turn`). */
export const BUDGET_FLAG_OPTIONS = {
  'budget-usd': { type: 'string' },
  'budget-tokens': { type: 'string' },
} as const;

/** The budget flags as `parseArgs` gives them. */
export interface BudgetFlagValues {
  'budget-usd'?: string | undefined;
  'budget-tokens'?: string | undefined;
}

const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  maxCostUsd: '--budget-usd',
  maxTotalTokens: '--budget-tokens',
};

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The input's `budget` from `--budget-usd N` (`maxCostUsd`) and `--budget-tokens N` (`maxTotalTokens`),
 * `undefined` when neither is given. Only the syntax is checked here; the ranges are the input check's, whose
 * refusals {@link budgetFlagOf} turns back into flags.
 */
export function budgetFromFlags(values: BudgetFlagValues): Budget | undefined {
  const budget: Budget = {};
  const read = (flag: keyof BudgetFlagValues, field: 'maxCostUsd' | 'maxTotalTokens') => {
    const text = values[flag];
    if (text === undefined) return;
    if (!NUMBER.test(text.trim())) {
      throw new UsageError(`\`--${flag}\` must be a number, not ${JSON.stringify(text)}.`);
    }
    budget[field] = Number(text);
  };
  read('budget-usd', 'maxCostUsd');
  read('budget-tokens', 'maxTotalTokens');
  return Object.keys(budget).length > 0 ? budget : undefined;
}

/** The flag of an input field `budget.<name>`, or `undefined` for others. */
export function budgetFlagOf(field: string): string | undefined {
  const match = /^budget\.(\w+)$/.exec(field);
  return match ? FLAG_OF_FIELD[match[1] as string] : undefined;
}

/** Help text lines for the budget flags, shared by `call --help` and `turn --help`. */
export const BUDGET_HELP = `Budget (failed attempts count; checked before every attempt with its worst case):
  --budget-usd N       Most USD (the provider's reported cost, else the model's \`pricing\` in the providers
                       file; a model without one fails Misconfigured before any request).
  --budget-tokens N    Most tokens, input and output together. Without --max-output-tokens the next
                       answer's size is guessed from the largest seen: best effort.
`;
