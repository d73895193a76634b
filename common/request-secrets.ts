/**
 * What a request may not carry because it is written into the history: credentials. Refused before anything
 * starts, naming the field: credential headers (by name, and any header whose value looks like a credential), an
 * API key in provider options, and a URL with a user name or password anywhere in the request. Keys belong to
 * the worker (its providers file and environment), never to a call.
 */
import { InvalidModelCallInputError } from './input-error.js';
import type { WireRequest } from './request.js';

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
/** Fields of provider options that hold a key. */
const KEY_FIELD = /^(api[-_]?key|apikey|secret[-_]?key|access[-_]?token|auth[-_]?token|password)$/i;
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

/** Refuses an API key in provider options (a field named like `apiKey` with a string value). */
export function checkProviderOptions(options: unknown, at = 'providerOptions'): void {
  walk(options, at, (value, field, key) => {
    if (key !== undefined && KEY_FIELD.test(key) && typeof value === 'string' && value !== '') {
      throw new InvalidModelCallInputError(
        field,
        `holds a credential, and a request is written into the workflow's history: ${WHERE_KEYS}`,
      );
    }
  });
}

/**
 * Refuses a URL with a user name or password in any string of the request (file URLs, provider options, tools,
 * messages). Base64 file data holds no `://` and is skipped.
 */
export function checkUrlUserinfo(request: Omit<WireRequest, 'spec'>, at = ''): void {
  walk(request, at, (value, field) => {
    if (typeof value === 'string' && value.includes('://') && USERINFO_URL.test(value)) {
      throw new InvalidModelCallInputError(
        field || 'request',
        'holds a URL with a user name or password, and a request is written into the history: remove them ' +
          '(a credential belongs to the worker)',
      );
    }
  });
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
