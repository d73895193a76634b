import { BUDGET_FIELDS, PRICING_FIELDS } from './budget.js';

/** One thing wrong with a budget or a price: the field's path, and what is wrong and the fix (after the field). */
export interface FieldProblem {
  field: string;
  message: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A finite number >= 0, or the problem with it. */
function amountProblem(value: unknown, field: string, unit: string): FieldProblem | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return undefined;
  return {
    field,
    message: `must be a finite number of ${unit}, 0 or more (got ${JSON.stringify(value) ?? String(value)})`,
  };
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], at: string): FieldProblem[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => ({
      field: `${at}.${key}`,
      message: `unknown field of \`${at}\`; the fields are ${known.join(', ')}`,
    }));
}

/**
 * The problems of a call's or a turn's `budget` (absent is fine): unknown keys, and amounts that are not finite
 * numbers of 0 or more. Token limits must be whole numbers.
 */
export function budgetProblems(value: unknown, at = 'budget'): FieldProblem[] {
  if (value === undefined) return [];
  if (!isRecord(value)) {
    return [
      {
        field: at,
        message: 'must be an object such as { "maxCostUsd": 0.5, "maxTotalTokens": 20000 }',
      },
    ];
  }
  const problems = unknownKeys(value, BUDGET_FIELDS, at);
  for (const field of BUDGET_FIELDS) {
    const v = value[field];
    if (v === undefined) continue;
    const tokens = field !== 'maxCostUsd';
    const problem = amountProblem(v, `${at}.${field}`, tokens ? 'tokens' : 'USD');
    if (problem) problems.push(problem);
    else if (tokens && !Number.isInteger(v)) {
      problems.push({ field: `${at}.${field}`, message: 'must be a whole number of tokens' });
    }
  }
  return problems;
}

/** The problems of a model's `pricing` in the providers file: the two prices required, all finite and >= 0. */
export function pricingProblems(value: unknown, at: string): FieldProblem[] {
  if (!isRecord(value)) {
    return [
      {
        field: at,
        message:
          'must be an object such as { "inputPerMTok": 0.15, "outputPerMTok": 0.6 } (USD per million tokens)',
      },
    ];
  }
  const problems = unknownKeys(value, PRICING_FIELDS, at);
  for (const field of PRICING_FIELDS) {
    const v = value[field];
    if (v === undefined && field === 'cachedInputPerMTok') continue;
    const problem = amountProblem(v, `${at}.${field}`, 'USD per million tokens');
    if (problem) problems.push(problem);
  }
  return problems;
}
