/** The check of one entry of the providers file: its name, type, fields, base URL, key variable and settings. */
import { createRequire } from 'node:module';
import { checkModels } from './models.js';
import { baseURLCredentialProblems, checkHeadersFromEnv } from './credentials.js';
import { checkHealthConfig } from './health-config.js';
import { checkLimits } from './limits.js';
import { PROVIDER_NAME, PROVIDER_TYPES } from './config-types.js';
import type { ProviderType } from './config-types.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const EXAMPLE = '{ "local": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:8080/v1" } }';

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

export const isRecord = (value: unknown): value is Record<string, unknown> =>
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

export function checkBaseURL(value: unknown, at: string, optional = false): string[] {
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

export function checkEntry(name: string, entry: unknown): string[] {
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
