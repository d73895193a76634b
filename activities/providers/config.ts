/**
 * The providers file: which providers a worker can call, by name. Plain JSON, checked before use; every
 * problem names its field and the fix. Keys never appear here: `apiKeyEnv` names the environment variable
 * that holds the key, read by the worker at request time.
 *
 * ```json
 * { "local": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:8080/v1", "apiKeyEnv": "LOCAL_KEY" } }
 * ```
 *
 * The built-in providers `openai` and `anthropic` need no entry (see {@link BUILTIN_PROVIDERS}); an entry of
 * the same name replaces them.
 */
import { readFileSync } from 'node:fs';
import { isCredentialName } from '../scrub.js';
import { checkBaseURL, checkEntry, EXAMPLE, isRecord } from './config-entry.js';
import { ProvidersConfigError } from './config-types.js';
import type { ProviderConfig, ProvidersConfig } from './config-types.js';

export { BUILTIN_PROVIDERS, PROVIDER_NAME, PROVIDER_TYPES, ProvidersConfigError } from './config-types.js';
export type {
  AnthropicProviderConfig,
  GoogleProviderConfig,
  OpenAICompatibleProviderConfig,
  OpenAIProviderConfig,
  OpenAIResponsesProviderConfig,
  ProviderConfig,
  ProvidersConfig,
  ProviderSettings,
  ProviderType,
} from './config-types.js';

/** The problems of base URL `value` given as `at` (a variable's name, say), each naming `at` and the fix. */
export function baseURLProblems(value: string, at: string): string[] {
  return checkBaseURL(value, at);
}

/**
 * The values of a config's headers that are credentials (scrubbed from messages like the key): every header
 * whose name has a credential word (`authorization`, `cf-aig-authorization`, `x-auth`, `*-key`, `*-token`,
 * `*-secret`, see `isCredentialName`).
 */
export function credentialHeaderValues(config: ProviderConfig): string[] {
  return Object.entries(config.headers ?? {})
    .filter(([key]) => isCredentialName(key))
    .map(([, value]) => value);
}

/**
 * Checks a parsed providers file. `source` names it in messages (the file's path).
 * @throws ProvidersConfigError listing every problem.
 */
export function parseProvidersConfig(value: unknown, source = 'providers'): ProvidersConfig {
  if (!isRecord(value)) {
    throw new ProvidersConfigError(source, [`expected an object of providers by name, like ${EXAMPLE}`]);
  }
  const problems = Object.entries(value).flatMap(([name, entry]) => checkEntry(name, entry));
  if (problems.length > 0) throw new ProvidersConfigError(source, problems);
  return value as ProvidersConfig;
}

/**
 * Reads and checks a providers JSON file.
 * @throws ProvidersConfigError when the file cannot be read, is not JSON, or has problems.
 */
export function readProvidersFile(path: string): ProvidersConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ProvidersConfigError(path, [
      `cannot read the providers file (${typeof code === 'string' ? code : String(error)}): check the path`,
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProvidersConfigError(path, [`not valid JSON (${(error as Error).message})`]);
  }
  return parseProvidersConfig(json, path);
}
