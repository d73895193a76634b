/**
 * What a request may not carry because it is written into the history: credentials. Refused before anything
 * starts, naming the field: credential headers (by name, and any header whose value looks like a credential), an
 * API key in provider options, and a URL with a user name or password anywhere in the request. Keys belong to
 * the worker (its providers file and environment), never to a call.
 */
import { InvalidModelCallInputError } from './input-error.js';

/** Request headers that carry credentials, by name (lower case). */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'x-goog-api-key',
];

/** A header value that looks like a credential: a bearer token, a JWT, an `sk-` key. */
const CREDENTIAL_VALUE =
  /^\s*(bearer\s+\S|basic\s+\S|sk-[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.)/i;
/** A URL with userinfo (`scheme://user:pass@host`, `scheme://token@host`). */
const USERINFO_URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i;

const WHERE_KEYS =
  'keys belong to the worker: name the variable in its providers file (`apiKeyEnv`, `headersFromEnv`)';

/** Which credential headers a check lets through: names (lower case) a worker allows, or any, for a later check. */
export type AllowHeaders = readonly string[] | 'any';

/**
 * Refuses the first credential in `headers`: by name, or by a value that looks like one. A header the worker
 * allows by name (`allowHeaders`, lower case) goes through whatever its value; `'any'` checks only the shape (the
 * workflow checks credentials once it knows its worker's `allowHeaders`).
 */
export function checkHeaders(headers: unknown, allowHeaders: AllowHeaders = [], at = 'headers'): void {
  if (headers === undefined) return;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    throw new InvalidModelCallInputError(at, 'must be an object of header names and string values');
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const field = `${at}.${name}`;
    if (typeof value !== 'string') throw new InvalidModelCallInputError(field, 'must be a string');
    const lower = name.toLowerCase();
    if (allowHeaders === 'any' || allowHeaders.includes(lower)) continue;
    if (CREDENTIAL_HEADERS.includes(lower)) {
      throw new InvalidModelCallInputError(
        field,
        `is a credential header, and a request is written into the workflow's history: ${WHERE_KEYS}`,
      );
    }
    if (CREDENTIAL_VALUE.test(value)) {
      throw new InvalidModelCallInputError(
        field,
        `looks like a credential (a bearer token, a JWT or an \`sk-\` key), and a request is written into the history: ${WHERE_KEYS}`,
      );
    }
  }
}

/** Parts of a field's name (lower case, `-` and `_` dropped) that say it holds a credential. */
const KEY_NAME_PARTS = [
  'apikey',
  'secret',
  'password',
  'passwd',
  'accesstoken',
  'authtoken',
  'authorization',
  'bearer',
  'privatekey',
  'credential',
  'sessiontoken',
  'refreshtoken',
  'idtoken',
];

/** Whether a field's name says it holds a credential (`apiKey`, `authorizationToken`, `client_secret`, `token`). */
function isKeyName(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  // `apiKeyEnv`: the name of a variable that holds a key, not the key.
  if (k.endsWith('env')) return false;
  return k === 'token' || KEY_NAME_PARTS.some((part) => k.includes(part));
}

/**
 * Refuses a credential in provider options or a provider-defined tool's arguments, at any depth: a string under a
 * field named like one (`apiKey`, `authorizationToken`, `client_secret`), a string that looks like one (a bearer
 * token, a JWT, an `sk-` key), or a credential header in a nested `headers` object (an MCP server's, say).
 */
export function checkProviderOptions(options: unknown, at = 'providerOptions'): void {
  walk(options, at, (value, field, key) => {
    if (typeof value === 'string' && value !== '') {
      if ((key !== undefined && isKeyName(key)) || CREDENTIAL_VALUE.test(value)) {
        throw new InvalidModelCallInputError(
          field,
          `holds a credential, and a request is written into the workflow's history: ${WHERE_KEYS}`,
        );
      }
      if (value.includes('://') && USERINFO_URL.test(value)) throw userinfo(field);
    } else if (key === 'headers' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      checkHeaders(value, [], field);
    }
  });
}

/** A URL with a user name and a password (`scheme://user:password@host`): in free text, only this is refused. */
const PASSWORD_URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]+:[^\s/?#@]+@/i;

/**
 * Refuses a URL with a user name or password in a field that holds a URL (a file's URL, a header's value), or,
 * with `text`, a URL with a password in free text (a prompt): `ssh://git@host` in a prompt is no credential.
 */
export function checkUrlUserinfo(value: unknown, at: string, kind: 'url' | 'text' = 'url'): void {
  const pattern = kind === 'url' ? USERINFO_URL : PASSWORD_URL;
  walk(value, at, (v, field) => {
    if (typeof v === 'string' && v.includes('://') && pattern.test(v)) throw userinfo(field || 'request');
  });
}

function userinfo(field: string): InvalidModelCallInputError {
  return new InvalidModelCallInputError(
    field,
    'holds a URL with a user name or password, and a request is written into the history: remove them ' +
      '(a credential belongs to the worker)',
  );
}

function walk(
  value: unknown,
  field: string,
  visit: (value: unknown, field: string, key?: string) => void,
  key?: string,
): void {
  visit(value, field, key);
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${field}[${i}]`, visit));
    return;
  }
  for (const [k, v] of Object.entries(value)) walk(v, field ? `${field}.${k}` : k, visit, k);
}
