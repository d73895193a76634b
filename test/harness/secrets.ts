import { randomBytes } from 'node:crypto';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The integration run's test credentials (made by the global setup, scanned for in every history). */
    testSecrets: TestSecrets;
  }
}

/**
 * The credentials tests hand to providers. Distinctive (`SECRET` in each, a random tail per run), so that a
 * history holding one cannot be a coincidence, and a scan for them cannot match anything else.
 */
export interface TestSecrets {
  /** Sent as `Authorization: Bearer <key>` by the `openai-compatible` test providers. */
  apiKey: string;
  /** Sent as `x-api-key: <key>` by the `anthropic` test providers. */
  anthropicKey: string;
  /** A credential header of a provider's config (`X-Proxy-Token`), scrubbed like a key. */
  proxyToken: string;
}

/** New random test credentials. */
export function makeTestSecrets(): TestSecrets {
  const tail = () => randomBytes(12).toString('hex');
  return {
    apiKey: `sk-loopback-SECRET-${tail()}`,
    anthropicKey: `sk-ant-loopback-SECRET-${tail()}`,
    proxyToken: `proxy-SECRET-${tail()}`,
  };
}

/**
 * What a history is searched for: each credential bare (as `x-api-key` sends it), as `Bearer <key>` (as
 * `Authorization` sends it), and its random tail alone (a key echoed in part, or re-encoded around its tail).
 */
export function leakNeedles(secrets: TestSecrets): string[] {
  return Object.values(secrets).flatMap((secret) => [
    `Bearer ${secret}`,
    secret,
    secret.slice(secret.lastIndexOf('-') + 1),
  ]);
}
