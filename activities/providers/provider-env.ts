/** What a provider takes from the worker's environment: its key, its base URL and headers, read at request time. */
import { PROVIDER_ADAPTERS } from './adapters.js';
import type { ProviderAdapter } from './adapters.js';
import { ProvidersConfigError, baseURLProblems } from './config.js';
import type { ProviderConfig, ProvidersConfig } from './config.js';
import { credentialFix, hasCredentials } from './credentials.js';
import { MisconfiguredError } from './registry-types.js';
import type { Env } from './registry-types.js';

/** The key of `provider`, read from `env` now: `undefined` when the config names no variable and needs none. */
export function readKey(
  provider: string,
  config: ProviderConfig,
  adapter: ProviderAdapter,
  env: Env,
): string | undefined {
  const apiKeyEnv = config.apiKeyEnv ?? adapter.defaults?.apiKeyEnv;
  if (apiKeyEnv === undefined) return undefined;
  const apiKey = env[apiKeyEnv];
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new MisconfiguredError(
      `provider "${provider}" reads its key from ${apiKeyEnv}, which is empty or unset in the worker's environment: set it and restart the worker`,
    );
  }
  return apiKey;
}

/** The base URL of `provider`: the config's, else the type's variable in `env` when set, else the type's default. */
export function baseURLOf(
  provider: string,
  config: ProviderConfig,
  adapter: ProviderAdapter,
  env: Env,
): string {
  if (config.baseURL !== undefined) return config.baseURL;
  const defaults = adapter.defaults;
  if (defaults === undefined) {
    throw new MisconfiguredError(`provider "${provider}" has no baseURL: set it in the providers file`);
  }
  const fromEnv = env[defaults.baseURLEnv]?.trim();
  if (fromEnv === undefined || fromEnv === '') return defaults.baseURL;
  if (URL.canParse(fromEnv) && hasCredentials(new URL(fromEnv))) {
    throw new MisconfiguredError(
      `provider "${provider}" takes its base URL from ${defaults.baseURLEnv}, which holds a credential (a user:password@ or a ?key= query): remove it from the URL and ${credentialFix(provider)}`,
    );
  }
  const [problem] = baseURLProblems(fromEnv, defaults.baseURLEnv);
  if (problem !== undefined) {
    throw new MisconfiguredError(
      `provider "${provider}" takes its base URL from ${defaults.baseURLEnv}: ${problem} (or unset it)`,
    );
  }
  return fromEnv;
}

/**
 * At start: a built-in type's base URL variable (`OPENAI_BASE_URL`) that holds a credential, is not an http(s)
 * URL, or names a port fetch refuses is refused now, as a providers file's `baseURL` is, so the worker does not
 * start instead of failing every attempt `Misconfigured`.
 */
export function refuseBadEnvBaseURLs(all: ProvidersConfig, env: Env): void {
  const problems: string[] = [];
  for (const [provider, config] of Object.entries(all)) {
    const variable = PROVIDER_ADAPTERS[config.type].defaults?.baseURLEnv;
    if (config.baseURL !== undefined || variable === undefined) continue;
    const value = env[variable]?.trim();
    if (value && URL.canParse(value) && hasCredentials(new URL(value))) {
      problems.push(
        `${variable} (the base URL of provider "${provider}") holds a credential (a user:password@ or a ?key= query): remove it from the URL and ${credentialFix(provider)}`,
      );
    } else if (value) {
      // Not a URL, not http(s), or a port fetch refuses: every attempt would fail, so the worker does not start.
      problems.push(...baseURLProblems(value, variable).map((p) => `${p} (or unset it)`));
    }
  }
  if (problems.length > 0) throw new ProvidersConfigError('environment', [...new Set(problems)]);
}

/** The headers of `config.headersFromEnv`, read from `env` now. */
export function headersFromEnv(provider: string, config: ProviderConfig, env: Env): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(config.headersFromEnv ?? {})) {
    const value = env[variable];
    if (value === undefined || value.trim() === '') {
      throw new MisconfiguredError(
        `provider "${provider}" reads its ${header} header from ${variable}, which is empty or unset in the worker's environment: set it and restart the worker`,
      );
    }
    headers[header] = value;
  }
  return headers;
}
