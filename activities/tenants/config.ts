/**
 * The tenants file: each tenant's envelope (what it may spend per period, across every call, attempt and worker)
 * and fairness weight, by tenant name, `*` for every tenant the file does not name. Plain JSON, checked when the
 * worker starts; every problem names its field and the fix.
 *
 * ```json
 * { "acme": { "maxTotalTokens": 2000000, "period": "day", "weight": 2 }, "*": { "maxCostUsd": 5 } }
 * ```
 */
import { readFileSync } from 'node:fs';
import { tenantEnvelopeProblems, tenantNameProblem } from '../../policy/tenant-fields.js';
import type { TenantEnvelope, TenantsConfig } from '../../common/tenants.js';
import type { Env } from '../providers/registry-types.js';

/** The variable naming the tenants file. */
export const TENANTS_FILE_ENV = 'MODEL_RETRY_TENANTS';

const EXAMPLE =
  '{ "acme": { "maxTotalTokens": 2000000, "period": "day", "weight": 2 }, "*": { "maxCostUsd": 5 } }';

/** A tenants file (or `tenants` option) the worker cannot use: `source` names it, `problems` say each fix. */
export class TenantsConfigError extends Error {
  override readonly name = 'TenantsConfigError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source}: ${problems.length === 1 ? problems[0] : `\n- ${problems.join('\n- ')}`}`);
  }
}

/**
 * Checks a parsed tenants file and gives a frozen copy of it (so what the worker tells its workflows cannot change
 * under them). `source` names it in messages (the file's path).
 * @throws TenantsConfigError listing every problem.
 */
export function parseTenantsConfig(value: unknown, source = 'tenants'): TenantsConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TenantsConfigError(source, [`expected an object of tenants by name, like ${EXAMPLE}`]);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const problems = entries.flatMap(([name, entry]) => {
    const badName = tenantNameProblem(name, `tenant name ${JSON.stringify(name)}`);
    if (badName) return [`${badName.field} ${badName.message}`];
    return tenantEnvelopeProblems(entry, name).map((p) => `\`${p.field}\` ${p.message}`);
  });
  if (problems.length > 0) throw new TenantsConfigError(source, problems);
  return Object.freeze(
    Object.fromEntries(
      entries.map(([name, entry]) => [name, Object.freeze({ ...(entry as TenantEnvelope) })]),
    ),
  );
}

/**
 * Reads and checks a tenants JSON file.
 * @throws TenantsConfigError when the file cannot be read, is not JSON, or has problems.
 */
export function readTenantsFile(path: string): TenantsConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new TenantsConfigError(path, [
      `cannot read the tenants file (${typeof code === 'string' ? code : String(error)}): check the path`,
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TenantsConfigError(path, [`not valid JSON (${(error as Error).message})`]);
  }
  return parseTenantsConfig(json, path);
}

/**
 * The tenants file named by `MODEL_RETRY_TENANTS` in `env`, checked; undefined when the variable is unset or
 * empty (the worker has no tenants file).
 * @throws TenantsConfigError naming the file and the variable when the file cannot be read or has problems.
 */
export function tenantsFromEnv(env: Env = process.env): TenantsConfig | undefined {
  const path = env[TENANTS_FILE_ENV];
  if (path === undefined || path.trim() === '') return undefined;
  try {
    return readTenantsFile(path);
  } catch (error) {
    if (!(error instanceof TenantsConfigError)) throw error;
    throw new TenantsConfigError(`${path} (named by ${TENANTS_FILE_ENV})`, error.problems);
  }
}
