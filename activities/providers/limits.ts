/**
 * The `limits` of a providers-file entry, on the provider (`"limits": {...}`: all its models together) or on one
 * of its models (`"models": { "fast": { "limits": {...} } }`: that backend alone, besides the provider's).
 * Checked when the worker starts; each problem names its field and the fix.
 */
import type { BackendLimits, LimitsByKey } from '../../common/limits.js';

/** One model's entry under a provider's `models`. */
export interface ModelEntryConfig {
  /** Limits of this backend alone (`provider:model`); its provider's hold for it too. */
  limits?: BackendLimits;
}

const LIMIT_FIELDS = ['requestsPerSecond', 'maxInFlight', 'tokensPerMinute'] as const;
const EXAMPLE = '{ "requestsPerSecond": 5, "maxInFlight": 8 }';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Problems of a `limits` object at `at` (like `local.limits`). */
export function checkLimits(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (!isRecord(value)) return [`\`${at}\` must be an object like ${EXAMPLE}`];
  const problems = Object.keys(value)
    .filter((key) => !(LIMIT_FIELDS as readonly string[]).includes(key))
    .map((key) => `\`${at}.${key}\` is not a known limit (known: ${LIMIT_FIELDS.join(', ')})`);
  const rps = value.requestsPerSecond;
  if (rps !== undefined && !(typeof rps === 'number' && Number.isFinite(rps) && rps > 0)) {
    problems.push(
      `\`${at}.requestsPerSecond\` must be a number above 0 (like 5 or 0.5), not ${JSON.stringify(rps)}`,
    );
  }
  const inFlight = value.maxInFlight;
  if (inFlight !== undefined && !(Number.isInteger(inFlight) && (inFlight as number) >= 1)) {
    problems.push(
      `\`${at}.maxInFlight\` must be a whole number of at least 1, not ${JSON.stringify(inFlight)}`,
    );
  }
  const tpm = value.tokensPerMinute;
  if (tpm !== undefined && !(Number.isInteger(tpm) && (tpm as number) >= 1)) {
    problems.push(
      `\`${at}.tokensPerMinute\` must be a whole number of at least 1 (like 90000), not ${JSON.stringify(tpm)}`,
    );
  }
  return problems;
}

/** What `limitsOf` reads of a provider entry. */
interface LimitedEntry {
  limits?: BackendLimits;
  models?: Readonly<Record<string, ModelEntryConfig>>;
}

/**
 * Every limit of a checked providers config, by key: the provider's name for a provider's `limits`,
 * `provider:model` for a model's. Entries without a limit are left out.
 */
export function limitsOf(config: Readonly<Record<string, LimitedEntry>>): LimitsByKey {
  const out: Record<string, BackendLimits> = {};
  for (const [provider, entry] of Object.entries(config)) {
    if (hasLimit(entry.limits)) out[provider] = { ...entry.limits };
    for (const [model, modelEntry] of Object.entries(entry.models ?? {})) {
      if (hasLimit(modelEntry.limits)) out[`${provider}:${model}`] = { ...modelEntry.limits };
    }
  }
  return out;
}

function hasLimit(limits: BackendLimits | undefined): limits is BackendLimits {
  return (
    limits !== undefined &&
    (limits.requestsPerSecond !== undefined ||
      limits.maxInFlight !== undefined ||
      limits.tokensPerMinute !== undefined)
  );
}
