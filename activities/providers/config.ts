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
import { createRequire } from 'node:module';
import { isCredentialName } from '../scrub.js';
import { checkModels } from './models.js';
import type { ModelConfig } from './models.js';
import { baseURLCredentialProblems, checkHeadersFromEnv } from './credentials.js';
import { checkHealthConfig } from './health-config.js';
import type { ProviderHealthConfig } from './health-config.js';
import { checkLimits } from './limits.js';
import type { BackendLimits } from '../../common/limits.js';

/** An OpenAI-compatible chat completions server (vLLM, Ollama, LM Studio, OpenRouter, the loopback provider...). */
export interface OpenAICompatibleProviderConfig extends ProviderSettings {
  type: 'openai-compatible';
  /** The API's base URL, up to and including `/v1`. */
  baseURL: string;
  /** The environment variable holding the API key; no `Authorization` header is sent without it. */
  apiKeyEnv?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Whether a streamed request asks for usage (`stream_options: { include_usage: true }`), so that a streamed
   * attempt's tokens are counted. Turn it off only for a server that refuses the option; its streamed attempts
   * then report no usage and count their worst case in budgets.
   * @default true
   */
  streamUsage?: boolean;
}

/** OpenAI's own API (`@ai-sdk/openai`, Chat Completions), or a proxy in front of it. */
export interface OpenAIProviderConfig extends ProviderSettings {
  type: 'openai';
  /**
   * The API's base URL, up to and including `/v1`.
   * @default `OPENAI_BASE_URL` from the worker's environment when set, else "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "OPENAI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`OpenAI-Organization`, `OpenAI-Project`, ...). */
  headers?: Record<string, string>;
}

/** Anthropic's messages API (`@ai-sdk/anthropic`), or a proxy in front of it. */
export interface AnthropicProviderConfig extends ProviderSettings {
  type: 'anthropic';
  /**
   * The API's base URL, up to and including `/v1` (`/messages` is appended); a URL with no path at all, as
   * Anthropic's own SDKs take it (`https://gateway.example`), gets `/v1`.
   * @default `ANTHROPIC_BASE_URL` from the worker's environment when set, else "https://api.anthropic.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "ANTHROPIC_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`anthropic-beta`, ...). */
  headers?: Record<string, string>;
}

/** Google's Gemini API (`@ai-sdk/google`, `generateContent`), or a proxy in front of it. */
export interface GoogleProviderConfig extends ProviderSettings {
  type: 'google';
  /**
   * The API's base URL, up to and including the version (`/v1beta`); `/models/<model>:generateContent` is
   * appended.
   * @default `GOOGLE_GENERATIVE_AI_BASE_URL` from the worker's environment when set, else
   * "https://generativelanguage.googleapis.com/v1beta"
   */
  baseURL?: string;
  /** The environment variable holding the API key, sent as `x-goog-api-key`. @default "GOOGLE_GENERATIVE_AI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** OpenAI's Responses API (`@ai-sdk/openai`'s `.responses()`, `POST {baseURL}/responses`), or a proxy. */
export interface OpenAIResponsesProviderConfig extends ProviderSettings {
  type: 'openai-responses';
  /**
   * The API's base URL, up to and including `/v1`.
   * @default `OPENAI_BASE_URL` from the worker's environment when set, else "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "OPENAI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`OpenAI-Organization`, `OpenAI-Project`, ...). */
  headers?: Record<string, string>;
}

/** What every provider type may carry besides its connection and its own headers. */
export interface ProviderSettings {
  /** Headers whose values are read from the worker's environment: header name -> variable name. */
  headersFromEnv?: Record<string, string>;
  /** Settings per model (the `model` of `provider:model`): its `pricing`, its own `limits`, its `prefill`. */
  models?: Record<string, ModelConfig>;
  /** Fleet health settings of this provider (see `health-config.ts`). */
  health?: ProviderHealthConfig;
  /** Limits of all this provider's models together (see `limits.ts`). */
  limits?: BackendLimits;
}

/** One provider's entry in the providers file. */
export type ProviderConfig =
  | OpenAICompatibleProviderConfig
  | OpenAIProviderConfig
  | AnthropicProviderConfig
  | GoogleProviderConfig
  | OpenAIResponsesProviderConfig;

/** The provider types a providers file may name. */
export const PROVIDER_TYPES = [
  'openai-compatible',
  'openai',
  'anthropic',
  'google',
  'openai-responses',
] as const;

/** One of {@link PROVIDER_TYPES}. */
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Providers by name (the `provider` of `provider:model`). */
export type ProvidersConfig = Readonly<Record<string, ProviderConfig>>;

/**
 * The providers every registry has without a providers file: `openai:<model>` and `anthropic:<model>`, keys
 * from `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, base URLs from `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` when
 * set. A providers-file entry of the same name replaces the built-in.
 */
export const BUILTIN_PROVIDERS: ProvidersConfig = Object.freeze({
  openai: Object.freeze({ type: 'openai' }),
  anthropic: Object.freeze({ type: 'anthropic' }),
});

/** A providers file (or object) that cannot be used. `problems` lists each problem; the message lists them all. */
export class ProvidersConfigError extends Error {
  override readonly name = 'ProvidersConfigError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source}: ${problems.length === 1 ? problems[0] : `\n- ${problems.join('\n- ')}`}`);
  }
}

/** A provider name: no `:` (it separates provider from model), no spaces. */
export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EXAMPLE = '{ "local": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:8080/v1" } }';

/** The fields of `ProviderSettings`, which every type takes. */
const SETTINGS_FIELDS = ['headersFromEnv', 'models', 'health', 'limits'];

const FIELDS: Readonly<Record<ProviderType, readonly string[]>> = {
  'openai-compatible': ['type', 'baseURL', 'apiKeyEnv', 'headers', 'streamUsage', ...SETTINGS_FIELDS],
  openai: ['type', 'baseURL', 'apiKeyEnv', 'headers', ...SETTINGS_FIELDS],
  anthropic: ['type', 'baseURL', 'apiKeyEnv', 'headers', ...SETTINGS_FIELDS],
  google: ['type', 'baseURL', 'apiKeyEnv', 'headers', ...SETTINGS_FIELDS],
  'openai-responses': ['type', 'baseURL', 'apiKeyEnv', 'headers', ...SETTINGS_FIELDS],
};

/** Types whose `baseURL` may be left out (the built-in types have a default). */
const OPTIONAL_BASE_URL: ReadonlySet<ProviderType> = new Set([
  'openai',
  'anthropic',
  'google',
  'openai-responses',
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The ports that undici's fetch (the transport's, activities/providers/transport.ts) refuses to connect to: the
 * Fetch standard's "bad ports" (6000, 6667, 10080...), as undici keeps them. undici exports no API for them, so
 * this reads its constants module (the version is pinned in package.json; test/unit/activities/providers.test.ts
 * guards the read). A request to one fails before anything is sent, which no retry could change.
 */
const FETCH_BAD_PORTS = fetchBadPorts();

/** undici's bad ports; none (no check at start: such a request still fails) where its module cannot be read. */
function fetchBadPorts(): ReadonlySet<string> {
  try {
    const constants = createRequire(import.meta.url)('undici/lib/web/fetch/constants.js') as {
      badPortsSet?: ReadonlySet<string>;
    };
    return constants.badPortsSet ?? new Set();
  } catch {
    // A worker bundled into one file, or an undici without this module: the check is skipped, nothing breaks.
    return new Set();
  }
}

function checkBaseURL(value: unknown, at: string, optional = false): string[] {
  const fix = `set it to the API's base URL, e.g. "http://127.0.0.1:8080/v1"`;
  if (value === undefined) return optional ? [] : [`\`${at}\` is missing: ${fix}`];
  if (typeof value !== 'string') return [`\`${at}\` must be a string: ${fix}`];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [`\`${at}\` is not a URL (${JSON.stringify(value)}): ${fix}`];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return [`\`${at}\` must be an http(s) URL, not ${url.protocol}: ${fix}`];
  }
  if (FETCH_BAD_PORTS.has(url.port)) {
    return [
      `\`${at}\` uses port ${url.port}, which fetch refuses to connect to (one of the Fetch standard's "bad ` +
        'ports"): serve the API on another port, or put a proxy on one in front of it',
    ];
  }
  return baseURLCredentialProblems(url, at);
}

function checkApiKeyEnv(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string' && ENV_NAME.test(value)) return [];
  return [`\`${at}\` must name an environment variable (like "LOCAL_KEY"), not hold the key itself`];
}

function checkHeaders(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (!isRecord(value)) return [`\`${at}\` must be an object of header names to string values`];
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k]) => `\`${at}.${k}\` must be a string`);
}

function checkBoolean(value: unknown, at: string, fix: string): string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return [`\`${at}\` must be true or false, not ${JSON.stringify(value)}: ${fix}`];
}

function unknownFields(entry: Record<string, unknown>, type: ProviderType, at: string): string[] {
  const known = FIELDS[type];
  return Object.keys(entry)
    .filter((key) => !known.includes(key))
    .map((key) =>
      /^(api_?key|key|token)$/i.test(key)
        ? `\`${at}.${key}\` is not allowed: keys never go in this file; put the key in an environment variable and name it in \`${at}.apiKeyEnv\``
        : `\`${at}.${key}\` is not a known field of a "${type}" provider (known: ${known.join(', ')})`,
    );
}

function checkEntry(name: string, entry: unknown): string[] {
  if (!PROVIDER_NAME.test(name)) {
    return [`provider name ${JSON.stringify(name)} may hold only letters, digits, '.', '_' and '-' (no ':')`];
  }
  if (!isRecord(entry)) return [`\`${name}\` must be an object, like ${EXAMPLE}`];
  const type = entry.type;
  if (!(PROVIDER_TYPES as readonly unknown[]).includes(type)) {
    const got = type === undefined ? 'is missing' : `is ${JSON.stringify(type)}`;
    return [`\`${name}.type\` ${got}: set it to one of ${PROVIDER_TYPES.map((t) => `"${t}"`).join(', ')}`];
  }
  const known = type as ProviderType;
  return [
    ...unknownFields(entry, known, name),
    ...checkBaseURL(entry.baseURL, `${name}.baseURL`, OPTIONAL_BASE_URL.has(known)),
    ...checkApiKeyEnv(entry.apiKeyEnv, `${name}.apiKeyEnv`),
    ...checkHeaders(entry.headers, `${name}.headers`),
    ...checkBoolean(
      entry.streamUsage,
      `${name}.streamUsage`,
      'leave it out (streamed requests ask for usage) or set it to false for a server that refuses `stream_options`',
    ),
    ...checkHeadersFromEnv(entry.headersFromEnv, `${name}.headersFromEnv`),
    ...checkLimits(entry.limits, `${name}.limits`),
    ...checkModels(entry.models, `${name}.models`, known),
    ...checkHealthConfig(entry.health, `${name}.health`),
  ];
}

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
