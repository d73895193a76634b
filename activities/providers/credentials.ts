/**
 * Where credentials may and may not come from in the providers file. A key is read from the environment
 * (`apiKeyEnv`), and so is any other credential header (`headersFromEnv`); a base URL never carries one: a
 * `user:password@` in it would go with every request and into every error the HTTP client raises about it.
 */
import { isCredentialName } from '../scrub.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fix a message about a credential in the wrong place gives, for provider `name`. */
export function credentialFix(name: string): string {
  return `put the key in an environment variable named by \`${name}.apiKeyEnv\`, or send a header whose value comes from the environment with \`${name}.headersFromEnv\` (e.g. { "Authorization": "PROXY_AUTH" })`;
}

/**
 * Whether a URL carries a credential: a user or password (`http://admin:pass@host/v1`), or a query parameter
 * whose name is a credential's (`?key=`, `?access_token=`).
 */
export function hasCredentials(url: URL): boolean {
  if (url.username !== '' || url.password !== '') return true;
  return [...url.searchParams.keys()].some((name) => isCredentialName(name));
}

/**
 * The problem of a base URL with credentials, naming `at` (`local.baseURL`) and never the URL itself (the
 * message goes to the worker's log).
 */
export function baseURLCredentialProblems(url: URL, at: string): string[] {
  if (!hasCredentials(url)) return [];
  const name = at.replace(/\.baseURL$/, '');
  return [
    `\`${at}\` holds a credential (a user:password@ or a ?key= query): it would go with every request and into its errors; remove it from the URL and ${credentialFix(name)}`,
  ];
}

/** Checks `headersFromEnv`: an object of header names to environment variable names. */
export function checkHeadersFromEnv(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (!isRecord(value)) {
    return [
      `\`${at}\` must be an object of header names to environment variable names, like { "Authorization": "PROXY_AUTH" }`,
    ];
  }
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'string' || !ENV_NAME.test(v))
    .map(
      ([k]) =>
        `\`${at}.${k}\` must name an environment variable (like "PROXY_AUTH"), not hold the value itself`,
    );
}
