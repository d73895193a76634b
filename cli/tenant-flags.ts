import { DEFAULT_TENANT } from '../common/tenants.js';
import type { TenantEnvelope } from '../common/tenants.js';
import { UsageError } from './args.js';

/** `parseArgs` options of `model-retry tenants set`. */
export const TENANT_SET_OPTIONS = {
  'max-total-tokens': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  period: { type: 'string' },
  'window-ms': { type: 'string' },
  weight: { type: 'string' },
} as const;

/** The flags of `tenants set` as `parseArgs` gives them. */
export interface TenantSetValues {
  'max-total-tokens'?: string | undefined;
  'max-cost-usd'?: string | undefined;
  period?: string | undefined;
  'window-ms'?: string | undefined;
  weight?: string | undefined;
}

const NUMBER = /^\+?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** `--flag`'s value as a number above 0 (a whole one when `whole`), or a `UsageError` naming the flag. */
function positive(flag: string, text: string, what: string, whole = false): number {
  const n = NUMBER.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
    throw new UsageError(`\`--${flag}\` must be ${what} above 0 (got ${JSON.stringify(text)}).`);
  }
  return n;
}

/**
 * The tenant a `tenants` verb names: one name, not the tenants file's default `*` (which has no ledger of its own:
 * each tenant it covers has its own).
 * @throws UsageError naming the fix.
 */
export function tenantName(verb: string, names: readonly string[]): string {
  const [name, ...extra] = names;
  if (name === undefined || name.trim() === '') {
    throw new UsageError(
      `\`tenants ${verb}\` needs the tenant's name, as in \`model-retry tenants ${verb} acme\`.`,
    );
  }
  if (extra.length > 0) {
    throw new UsageError(`\`tenants ${verb}\` takes one tenant, not also ${JSON.stringify(extra[0])}.`);
  }
  if (name === DEFAULT_TENANT) {
    throw new UsageError(
      `\`${DEFAULT_TENANT}\` is the tenants file's default, not a tenant: each tenant it covers has a ledger of ` +
        'its own; name that tenant.',
    );
  }
  return name;
}

/**
 * The envelope `tenants set` sends, from its flags. It replaces the ledger's whole envelope, so it needs a limit:
 * `--max-total-tokens` and/or `--max-cost-usd`, per `--period day|month` (UTC; default day) or a rolling
 * `--window-ms`, with an optional fairness `--weight`.
 * @throws UsageError naming the flag and the fix.
 */
export function envelopeFromFlags(values: TenantSetValues): TenantEnvelope {
  const envelope: TenantEnvelope = {};
  const tokens = values['max-total-tokens'];
  const usd = values['max-cost-usd'];
  if (tokens !== undefined) {
    envelope.maxTotalTokens = positive('max-total-tokens', tokens, 'a whole number of tokens', true);
  }
  if (usd !== undefined) envelope.maxCostUsd = positive('max-cost-usd', usd, 'a number of USD');
  if (tokens === undefined && usd === undefined) {
    throw new UsageError(
      '`tenants set` replaces the whole envelope: give `--max-total-tokens N` or `--max-cost-usd USD` (or both).',
    );
  }
  const { period, 'window-ms': windowMs, weight } = values;
  if (period !== undefined && windowMs !== undefined) {
    throw new UsageError(
      '`--period` and `--window-ms` exclude each other: a calendar period (day, month) or a rolling window.',
    );
  }
  if (period !== undefined) {
    if (period !== 'day' && period !== 'month') {
      throw new UsageError(`\`--period\` must be day or month (UTC), not ${JSON.stringify(period)}.`);
    }
    envelope.period = period;
  }
  if (windowMs !== undefined) {
    envelope.windowMs = positive('window-ms', windowMs, 'a whole number of milliseconds', true);
  }
  if (weight !== undefined) envelope.weight = positive('weight', weight, 'a number');
  return envelope;
}
