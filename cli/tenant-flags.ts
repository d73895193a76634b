import { tenantEnvelopeProblems, tenantNameProblem } from '../policy/tenant-fields.js';
import { DEFAULT_TENANT } from '../common/tenants.js';
import type { TenantEnvelope, TenantPeriod } from '../common/tenants.js';
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

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** The flag of each envelope field. */
const FLAG_OF: Readonly<Record<string, string>> = {
  maxTotalTokens: '--max-total-tokens',
  maxCostUsd: '--max-cost-usd',
  period: '--period',
  windowMs: '--window-ms',
  weight: '--weight',
};

/** `--flag`'s value as a number (its range is the tenants file's rule), or a `UsageError` naming the flag. */
function numberOf(flag: string, text: string): number {
  if (!NUMBER.test(text.trim())) {
    throw new UsageError(`\`--${flag}\` must be a number, not ${JSON.stringify(text)}.`);
  }
  return Number(text);
}

/**
 * The tenant a `tenants` verb names: one name, by the rule of the tenants file's names, and not its default `*`
 * (which has no ledger of its own: each tenant it covers has its own).
 * @throws UsageError naming the fix.
 */
export function tenantName(verb: string, names: readonly string[]): string {
  const [name, ...extra] = names;
  if (name === undefined) {
    throw new UsageError(
      `\`tenants ${verb}\` needs the tenant's name, as in \`model-retry tenants ${verb} acme\`.`,
    );
  }
  if (extra.length > 0) {
    throw new UsageError(`\`tenants ${verb}\` takes one tenant, not also ${JSON.stringify(extra[0])}.`);
  }
  const problem = tenantNameProblem(name, 'NAME');
  if (problem !== undefined) throw new UsageError(`the tenant's ${problem.field} ${problem.message}.`);
  if (name === DEFAULT_TENANT) {
    throw new UsageError(
      `\`${DEFAULT_TENANT}\` is the tenants file's default, not a tenant: each tenant it covers has a ledger of ` +
        'its own; name that tenant.',
    );
  }
  return name;
}

/**
 * The envelope `tenants set` sends, from its flags, checked by the tenants file's rules. It replaces the ledger's
 * whole envelope, so it needs a limit: `--max-total-tokens` and/or `--max-cost-usd`, per `--period day|month`
 * (UTC; default day) or a rolling `--window-ms`, with an optional fairness `--weight`.
 * @throws UsageError naming the flag and the fix.
 */
export function envelopeFromFlags(values: TenantSetValues): TenantEnvelope {
  const envelope: TenantEnvelope = {};
  const tokens = values['max-total-tokens'];
  const usd = values['max-cost-usd'];
  const { period, 'window-ms': windowMs, weight } = values;
  if (tokens === undefined && usd === undefined) {
    throw new UsageError(
      '`tenants set` replaces the whole envelope: give `--max-total-tokens N` or `--max-cost-usd USD` (or both).',
    );
  }
  if (period !== undefined && windowMs !== undefined) {
    throw new UsageError(
      '`--period` and `--window-ms` exclude each other: a calendar period (day, month) or a rolling window.',
    );
  }
  if (tokens !== undefined) envelope.maxTotalTokens = numberOf('max-total-tokens', tokens);
  if (usd !== undefined) envelope.maxCostUsd = numberOf('max-cost-usd', usd);
  if (period !== undefined) envelope.period = period as TenantPeriod;
  if (windowMs !== undefined) envelope.windowMs = numberOf('window-ms', windowMs);
  if (weight !== undefined) envelope.weight = numberOf('weight', weight);
  const [problem] = tenantEnvelopeProblems(envelope, 'envelope');
  if (problem !== undefined) {
    const field = problem.field.slice('envelope.'.length);
    // The file's rule names its fields; here they are flags.
    const message = problem.message.replace(/`(\w+)`/g, (m, name: string) => `\`${FLAG_OF[name] ?? name}\``);
    throw new UsageError(`\`${FLAG_OF[field] ?? field}\` ${message}.`);
  }
  return envelope;
}
