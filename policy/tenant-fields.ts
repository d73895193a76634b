import type { FieldProblem } from './budget-fields.js';

/** The fields of a tenant's entry in the tenants file. */
export const TENANT_FIELDS = ['maxCostUsd', 'maxTotalTokens', 'period', 'windowMs', 'weight'] as const;

/** The calendar periods an envelope may renew at (UTC). */
export const TENANT_PERIODS = ['day', 'month'] as const;

/**
 * The longest tenant name, in UTF-8 bytes: the name is Temporal's fairness key, which holds at most 64 bytes, and
 * a part of the ledger's workflow id.
 */
export const MAX_TENANT_NAME_BYTES = 64;

/** The largest fairness weight: one tenant may count as a thousand others, no more. */
export const MAX_TENANT_WEIGHT = 1000;

/** The shortest rolling window: a window shorter than a second would renew between a lease and its use. */
export const MIN_TENANT_WINDOW_MS = 1000;

const EXAMPLE = '{ "maxTotalTokens": 2000000, "period": "day", "weight": 2 }';

// C0 controls, DEL and C1 controls: invisible in a log line and in the Web UI, so two names would read alike.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const shown = (value: unknown): string => JSON.stringify(value) ?? String(value);

/**
 * The problem of a tenant's name, or undefined: a string, not empty, at most {@link MAX_TENANT_NAME_BYTES} UTF-8
 * bytes, no control characters. `field` names where it was given (a call's `tenant`, a key of the tenants file).
 */
export function tenantNameProblem(name: unknown, field: string): FieldProblem | undefined {
  if (typeof name !== 'string') {
    return { field, message: `must be a string naming the tenant, like "acme" (got ${shown(name)})` };
  }
  if (name === '') return { field, message: 'is empty: name the tenant, like "acme"' };
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_TENANT_NAME_BYTES) {
    return {
      field,
      message: `is ${bytes} UTF-8 bytes long (at most ${MAX_TENANT_NAME_BYTES}, Temporal's limit on a fairness key): shorten it`,
    };
  }
  if (CONTROL.test(name)) {
    return { field, message: `holds a control character (${shown(name)}): remove it` };
  }
  return undefined;
}

/**
 * The problems of one tenant's entry of the tenants file, at `at` (the tenant's name): unknown fields, limits that
 * are not positive (`maxTotalTokens` whole), a `period` that is not `day` or `month`, a `windowMs` under a second
 * or not whole, `period` and `windowMs` together, a weight outside (0, {@link MAX_TENANT_WEIGHT}], and a period
 * or window without a limit for it to renew. An entry with a weight only (no limit) is fine: no envelope.
 */
export function tenantEnvelopeProblems(value: unknown, at: string): FieldProblem[] {
  if (!isRecord(value)) return [{ field: at, message: `must be an object, like ${EXAMPLE}` }];
  const problems: FieldProblem[] = Object.keys(value)
    .filter((key) => !(TENANT_FIELDS as readonly string[]).includes(key))
    .map((key) => ({
      field: `${at}.${key}`,
      message: `is not a field of a tenant; the fields are ${TENANT_FIELDS.join(', ')}`,
    }));
  const { maxCostUsd, maxTotalTokens, period, windowMs, weight } = value;
  if (maxCostUsd !== undefined && !(finiteNumber(maxCostUsd) && maxCostUsd > 0)) {
    problems.push({
      field: `${at}.maxCostUsd`,
      message: `must be a number of USD above 0, like 25 (got ${shown(maxCostUsd)}); leave it out for no cost limit`,
    });
  }
  if (maxTotalTokens !== undefined && !wholeAtLeast(maxTotalTokens, 1)) {
    problems.push({
      field: `${at}.maxTotalTokens`,
      message: `must be a whole number of tokens, 1 or more, like 2000000 (got ${shown(maxTotalTokens)}); leave it out for no token limit`,
    });
  }
  if (period !== undefined && !(TENANT_PERIODS as readonly unknown[]).includes(period)) {
    problems.push({
      field: `${at}.period`,
      message: `must be ${TENANT_PERIODS.map((p) => `"${p}"`).join(' or ')} (UTC) (got ${shown(period)}); for another span use \`windowMs\``,
    });
  }
  if (windowMs !== undefined && !wholeAtLeast(windowMs, MIN_TENANT_WINDOW_MS)) {
    problems.push({
      field: `${at}.windowMs`,
      message: `must be a whole number of milliseconds, ${MIN_TENANT_WINDOW_MS} or more, like 3600000 for an hour (got ${shown(windowMs)})`,
    });
  }
  if (period !== undefined && windowMs !== undefined) {
    problems.push({
      field: `${at}.windowMs`,
      message: `is given with \`${at}.period\`: keep one, a calendar period ("day", "month") or a rolling window`,
    });
  }
  if (
    (period !== undefined || windowMs !== undefined) &&
    maxCostUsd === undefined &&
    maxTotalTokens === undefined
  ) {
    const which = period !== undefined ? 'period' : 'windowMs';
    problems.push({
      field: `${at}.${which}`,
      message: `says when limits renew, but the entry has none: add \`maxCostUsd\` or \`maxTotalTokens\`, or remove \`${which}\``,
    });
  }
  if (weight !== undefined && !(finiteNumber(weight) && weight > 0 && weight <= MAX_TENANT_WEIGHT)) {
    problems.push({
      field: `${at}.weight`,
      message: `must be a number above 0 and at most ${MAX_TENANT_WEIGHT}, like 2 (got ${shown(weight)}); leave it out for 1`,
    });
  }
  return problems;
}

function finiteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function wholeAtLeast(value: unknown, least: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= least;
}
