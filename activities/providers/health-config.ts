/**
 * The providers file's `health` entry (fleet health settings of one provider), checked at worker start. Every
 * problem names its field and the fix.
 *
 * ```json
 * { "local": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:8080/v1",
 *              "health": { "trip": { "failures": 5, "windowMs": 30000 }, "coolDownMs": 30000, "scope": "model" } } }
 * ```
 */

/** A provider's fleet health settings; `false` turns fleet health off for it on a worker that has it on. */
export type ProviderHealthConfig =
  | false
  | {
      /** Transient failures within the window, with no success among them, that open a backend. */
      trip?: { failures?: number; windowMs?: number };
      /** The first cool-down (doubling while probes fail, at most `maxCoolDownMs`). @default 30000 */
      coolDownMs?: number;
      /** The longest cool-down. @default 300000 */
      maxCoolDownMs?: number;
      /** One state per model (`provider:model`, default) or per provider, where the limit is the account's. */
      scope?: 'model' | 'provider';
    };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const EXAMPLE = '{ "trip": { "failures": 5, "windowMs": 30000 }, "coolDownMs": 30000 }';

function wholeMs(value: unknown, at: string, min: number, max: number): string[] {
  if (value === undefined) return [];
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return [];
  return [`\`${at}\` must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`];
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], at: string): string[] {
  return Object.keys(value)
    .filter((k) => !known.includes(k))
    .map((k) => `\`${at}.${k}\` is not a known field (known: ${known.join(', ')})`);
}

/** The problems of a provider's `health` entry at `at` (`local.health`); none for a good or absent one. */
export function checkHealthConfig(value: unknown, at: string): string[] {
  if (value === undefined || value === false) return [];
  if (!isRecord(value)) return [`\`${at}\` must be false or an object, like ${EXAMPLE}`];
  const problems = unknownKeys(value, ['trip', 'coolDownMs', 'maxCoolDownMs', 'scope'], at);
  const trip = value.trip;
  if (trip !== undefined && !isRecord(trip))
    problems.push(`\`${at}.trip\` must be an object, like ${EXAMPLE}`);
  if (isRecord(trip)) {
    problems.push(...unknownKeys(trip, ['failures', 'windowMs'], `${at}.trip`));
    problems.push(...wholeMs(trip.failures, `${at}.trip.failures`, 1, 1000));
    problems.push(...wholeMs(trip.windowMs, `${at}.trip.windowMs`, 1, 3_600_000));
  }
  problems.push(...wholeMs(value.coolDownMs, `${at}.coolDownMs`, 1, 3_600_000));
  problems.push(...wholeMs(value.maxCoolDownMs, `${at}.maxCoolDownMs`, 1, 3_600_000));
  const cool = typeof value.coolDownMs === 'number' ? value.coolDownMs : 30_000;
  const max = typeof value.maxCoolDownMs === 'number' ? value.maxCoolDownMs : 300_000;
  if (problems.length === 0 && cool > max) {
    problems.push(
      `\`${at}.coolDownMs\` (${cool}) is over \`${at}.maxCoolDownMs\` (${max}): lower it or raise the cap`,
    );
  }
  if (value.scope !== undefined && value.scope !== 'model' && value.scope !== 'provider') {
    problems.push(`\`${at}.scope\` must be "model" or "provider", not ${JSON.stringify(value.scope)}`);
  }
  return problems;
}
