import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { echoAuth, fail, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, builtinEnv, builtinRegistry, input, runAttempt } from './helpers.js';

const PASSWORD = 'hunter2-Pa55word';

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('a base URL with credentials in the providers file', () => {
  const withUser = (baseURL: string) => ({
    local: { type: 'openai-compatible', baseURL, apiKeyEnv: 'LOCAL_KEY' },
  });

  it.each([
    ['user and password', `http://admin:${PASSWORD}@127.0.0.1:8080/v1`],
    ['a user (a token) alone', `https://${PASSWORD}@gateway.example/v1`],
    ['a key in its query', `https://gateway.example/v1?key=${PASSWORD}`],
    ['an access token in its query', `https://gateway.example/v1?tenant=a&access_token=${PASSWORD}`],
  ])('is refused with %s, naming baseURL and the fix, never the password', (_name, baseURL) => {
    const error = thrown(() => parseProvidersConfig(withUser(baseURL), 'providers.json'));
    expect(error).toBeInstanceOf(ProvidersConfigError);
    expect(error.message).toContain('`local.baseURL`');
    expect(error.message).toContain('`local.apiKeyEnv`');
    expect(error.message).toContain('`local.headersFromEnv`');
    expect(error.message).not.toContain(PASSWORD);
  });

  it('stops the worker from starting (createActivities with MODEL_RETRY_PROVIDERS)', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'model-retry-creds-')), 'providers.json');
    writeFileSync(path, JSON.stringify(withUser(`http://admin:${PASSWORD}@127.0.0.1:8080/v1`)));
    const error = thrown(() => createActivities({ env: { MODEL_RETRY_PROVIDERS: path } }));
    expect(error).toBeInstanceOf(ProvidersConfigError);
    expect(error.message).toContain('baseURL');
    expect(error.message).not.toContain(PASSWORD);
  });

  it('in OPENAI_BASE_URL is refused when the worker starts, naming the variable, without the password', () => {
    const url = new URL(lp.openaiBaseURL);
    url.username = 'admin';
    url.password = PASSWORD;
    const error = thrown(() => createActivities({ env: { OPENAI_BASE_URL: url.toString() } }));
    expect(error).toBeInstanceOf(ProvidersConfigError);
    expect(error.message).toContain('OPENAI_BASE_URL');
    expect(error.message).not.toContain(PASSWORD);
  });

  it('in OPENAI_BASE_URL set after the start fails the attempt as Misconfigured before any request, without the password', async () => {
    const url = new URL(lp.openaiBaseURL);
    url.username = 'admin';
    url.password = PASSWORD;
    const env: Record<string, string | undefined> = { ...builtinEnv(lp) };
    const registry = createProviderRegistry({}, { env });
    env.OPENAI_BASE_URL = url.toString();
    const { details } = await attemptFailure(runAttempt(registry, input('openai:m')).done);
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('OPENAI_BASE_URL');
    expect(details.message).not.toContain(PASSWORD);
    expect(lp.requestCount('m')).toBe(0);
  });
});

describe("a built-in provider's base URL variable that no request could use", () => {
  it.each([
    [
      'on a port fetch refuses',
      'http://127.0.0.1:6000/v1',
      /`OPENAI_BASE_URL` uses port 6000.*\(or unset it\)/,
    ],
    ['that is no URL', 'gateway', /`OPENAI_BASE_URL` is not a URL.*\(or unset it\)/],
    ['that is not http(s)', 'ftp://gateway.example/v1', /`OPENAI_BASE_URL` must be an http\(s\) URL/],
  ])('%s is refused when the worker starts, naming the variable and the fix', (_what, value, message) => {
    const error = thrown(() => createActivities({ env: { OPENAI_BASE_URL: value } }));
    expect(error).toBeInstanceOf(ProvidersConfigError);
    expect(error.message).toMatch(message);
  });

  it('set after the start on a port fetch refuses, fails the attempt Misconfigured naming the port, sending nothing', async () => {
    const env: Record<string, string | undefined> = { ...builtinEnv(lp) };
    const registry = createProviderRegistry({}, { env });
    env.OPENAI_BASE_URL = 'http://127.0.0.1:6000/v1';
    const { details } = await attemptFailure(runAttempt(registry, input('openai:m')).done);
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toMatch(
      /takes its base URL from OPENAI_BASE_URL: `OPENAI_BASE_URL` uses port 6000/,
    );
  });
});

describe('headers from the environment (headersFromEnv)', () => {
  const BASIC = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const registry = (env: Record<string, string>) =>
    createProviderRegistry(
      {
        proxy: {
          type: 'openai-compatible',
          baseURL: lp.openaiBaseURL,
          headersFromEnv: { Authorization: 'PROXY_AUTH', 'cf-aig-authorization': 'GATEWAY_TOKEN' },
        },
      },
      { env },
    );

  it('are sent, and their values never reach a failure even when the provider echoes them', async () => {
    lp.script('m', [echoAuth(401, { everywhere: true })]);
    const env = { PROXY_AUTH: BASIC, GATEWAY_TOKEN: 'gw-token-0123456789' };
    const { details } = await attemptFailure(runAttempt(registry(env), input('proxy:m')).done);
    const sent = lp.requests('m')[0]?.headers;
    expect(sent?.authorization).toBe(BASIC);
    expect(sent?.['cf-aig-authorization']).toBe('gw-token-0123456789');
    expect(details.class).toBe('AuthFailed');
    const text = JSON.stringify(details);
    expect(text).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString('base64'));
    expect(text).not.toContain(PASSWORD);
  });

  it('fail the attempt as Misconfigured when their variable is unset, naming it', async () => {
    const { details } = await attemptFailure(
      runAttempt(registry({ PROXY_AUTH: BASIC }), input('proxy:m')).done,
    );
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('GATEWAY_TOKEN');
    expect(lp.requestCount('m')).toBe(0);
  });

  it('must name variables, not hold values', () => {
    const error = thrown(() =>
      parseProvidersConfig({
        p: {
          type: 'openai-compatible',
          baseURL: 'http://127.0.0.1/v1',
          headersFromEnv: { 'x-auth': 'a b c' },
        },
      }),
    );
    expect(error.message).toContain('`p.headersFromEnv.x-auth`');
  });
});

describe('no credential reaches a failure message, wherever it came from', () => {
  it('a header value from the environment, echoed without its scheme', async () => {
    const basic = Buffer.from(`admin:${PASSWORD}`).toString('base64');
    const registry = createProviderRegistry(
      { p: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, headersFromEnv: { 'x-auth': 'X_AUTH' } } },
      { env: { X_AUTH: `Basic ${basic}` } },
    );
    lp.script('m', [fail(502, { message: `credentials ${basic} were not accepted upstream` })]);
    const { details } = await attemptFailure(runAttempt(registry, input('p:m')).done);
    expect(details.class).toBe('ServerError');
    expect(details.message).not.toContain(basic);
  });

  it('a URL with a user and password, or a ?key=, in a provider error message', async () => {
    const registry = builtinRegistry(lp);
    lp.script('m', [
      fail(502, { message: `upstream http://admin:${PASSWORD}@10.0.0.1/v1?key=abcdef0123456 failed` }),
    ]);
    const { details } = await attemptFailure(runAttempt(registry, input('openai:m')).done);
    expect(details.message).not.toContain(PASSWORD);
    expect(details.message).not.toContain('abcdef0123456');
    expect(details.message).toContain('upstream http://[redacted]@10.0.0.1/v1?key=[redacted] failed');
  });
});
