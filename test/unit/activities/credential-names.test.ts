import { describe, expect, it } from 'vitest';
import { credentialHeaderValues } from '../../../activities/providers/config.js';
import { isCredentialName, scrub } from '../../../activities/scrub.js';

describe('credential header names, by pattern', () => {
  it.each([
    'Authorization',
    'proxy-authorization',
    'cf-aig-authorization',
    'x-auth',
    'X-Auth-Token',
    'x-api-key',
    'api-key',
    'x-goog-api-key',
    'ocp-apim-subscription-key',
    'x-proxy-token',
    'private-token',
    'x-amz-security-token',
    'x-client-secret',
    'client_secret',
    'x-password',
    'cookie',
    'x-signature',
    'apikey',
  ])('%s is a credential', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    'content-type',
    'accept',
    'x-request-id',
    'openai-organization',
    'openai-project',
    'anthropic-version',
    'anthropic-beta',
    'x-ratelimit-remaining-tokens',
    'anthropic-ratelimit-tokens-remaining',
    'x-should-retry',
    'retry-after',
    'keyword',
    'author',
  ])('%s is not', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });

  it("makes the config's credential header values secrets, and only those", () => {
    const values = credentialHeaderValues({
      type: 'openai-compatible',
      baseURL: 'http://127.0.0.1/v1',
      headers: {
        'cf-aig-authorization': 'Bearer gateway-secret-1',
        'x-auth': 'auth-secret-2',
        'x-tenant-secret': 'tenant-secret-3',
        'x-service-token': 'token-secret-4',
        'x-org-key': 'key-secret-5',
        'openai-organization': 'org-public',
      },
    });
    expect(values.sort()).toEqual(
      [
        'Bearer gateway-secret-1',
        'auth-secret-2',
        'tenant-secret-3',
        'token-secret-4',
        'key-secret-5',
      ].sort(),
    );
  });
});

describe('a credential header or parameter echoed in a message', () => {
  it.each([
    ['cf-aig-authorization: Bearer gw0123456789', 'cf-aig-authorization: [redacted]'],
    ['"cf-aig-authorization":"gw0123456789"', '"cf-aig-authorization":"[redacted]"'],
    ['x-auth=abc0123456789; next', 'x-auth=[redacted]; next'],
    ['X-Auth-Token: tok0123456789', 'X-Auth-Token: [redacted]'],
    ['x-client-secret: s3cr3t-value', 'x-client-secret: [redacted]'],
    ['{"x-goog-api-key": "AIzaSyExample0123"}', '{"x-goog-api-key": "[redacted]"}'],
    ['GET /v1/models?key=AIzaSyExample0123&alt=json', 'GET /v1/models?key=[redacted]&alt=json'],
    ['https://admin:pa55word@proxy.internal/v1', 'https://[redacted]@proxy.internal/v1'],
    ['https://tokenonly0123@proxy.internal/v1', 'https://[redacted]@proxy.internal/v1'],
  ])('%s', (text, expected) => {
    expect(scrub(text)).toBe(expected);
  });

  it('leaves ordinary provider messages alone', () => {
    for (const text of [
      'Rate limit reached for requests: limit 500, used 500',
      'max_tokens must be at least 1',
      'This model supports at most 8192 completion tokens',
      'contact support@example.com',
    ]) {
      expect(scrub(text)).toBe(text);
    }
  });
});
