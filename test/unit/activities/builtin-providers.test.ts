import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { MisconfiguredError, createProviderRegistry } from '../../../activities/providers/registry.js';
import {
  echoAuth,
  fail,
  ok,
  quotaExhausted,
  rateLimited,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import {
  ANTHROPIC_KEY,
  LOCAL_KEY,
  OPENAI_KEY,
  attemptFailure,
  builtinEnv,
  builtinRegistry,
  input,
  quietEnvironment,
  runAttempt,
} from './helpers.js';

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  vi.unstubAllEnvs();
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

/** A base URL where nothing listens: a request sent there would fail to connect. */
const nowhere = 'http://127.0.0.1:9/v1';

describe('the built-in providers, without a providers file', () => {
  it('openai:<model> answers through Chat Completions, with the key as a bearer token', async () => {
    lp.script('gpt-4o-mini', [ok('hello from openai', { usage: { inputTokens: 6, outputTokens: 3 } })]);
    const { modelRequest } = createActivities({ env: builtinEnv(lp) });
    const result = await quietEnvironment().run(modelRequest, input('openai:gpt-4o-mini'));
    expect(result).toMatchObject({
      text: 'hello from openai',
      finishReason: 'stop',
      usage: { inputTokens: 6, outputTokens: 3, totalTokens: 9 },
      responseId: expect.stringMatching(/^chatcmpl-loopback-/) as unknown,
      provider: 'openai',
    });
    expect(result).not.toHaveProperty('cost');
    const [request] = lp.requests('gpt-4o-mini');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
    expect(request?.headers['x-request-id']).toBe('wf-test/c1.1');
  });

  it('anthropic:<model> answers through the messages API, with the key in x-api-key', async () => {
    lp.script('claude-sonnet-4-5', [
      ok('hello from anthropic', { usage: { inputTokens: 8, outputTokens: 4 } }),
    ]);
    const { modelRequest } = createActivities({ env: builtinEnv(lp) });
    const result = await quietEnvironment().run(modelRequest, input('anthropic:claude-sonnet-4-5'));
    expect(result).toMatchObject({
      text: 'hello from anthropic',
      finishReason: 'stop',
      usage: { inputTokens: 8, outputTokens: 4, totalTokens: 12 },
      responseId: expect.stringMatching(/^msg_loopback_/) as unknown,
      provider: 'anthropic',
    });
    const [request] = lp.requests('claude-sonnet-4-5');
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(request?.headers['authorization']).toBeUndefined();
    expect(request?.headers['anthropic-version']).toBeDefined();
    expect(request?.headers['x-request-id']).toBe('wf-test/c1.1');
  });

  it('are listed by every registry', () => {
    expect(createProviderRegistry({}, { env: {} }).names()).toEqual(['openai', 'anthropic']);
  });

  it.each([
    ['openai', 'OPENAI_API_KEY'],
    ['anthropic', 'ANTHROPIC_API_KEY'],
  ])(
    '%s without %s fails the attempt as Misconfigured naming the variable, sending nothing',
    async (provider, variable) => {
      const { modelRequest } = createActivities({ env: builtinEnv(lp, { [variable]: undefined }) });
      const { details } = await attemptFailure(quietEnvironment().run(modelRequest, input(`${provider}:m`)));
      expect(details.class).toBe('Misconfigured');
      expect(details.message).toContain(`reads its key from ${variable}, which is empty or unset`);
      expect(lp.requestCount()).toBe(0);
    },
  );

  it('reads no key when the activities are created (a worker without keys starts)', () => {
    expect(() => createActivities({ env: {} })).not.toThrow();
  });

  it('reads keys and base URLs from the injected environment only, never from process.env', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-process-env-key-000000');
    vi.stubEnv('OPENAI_BASE_URL', nowhere);
    const noKey = createProviderRegistry({}, { env: { OPENAI_BASE_URL: lp.openaiBaseURL } });
    expect(() => noKey.resolve('openai:m')).toThrow(MisconfiguredError);

    lp.script('m', [ok('from the injected base URL')]);
    const result = await runAttempt(builtinRegistry(lp), input('openai:m')).done;
    expect(result).toMatchObject({ text: 'from the injected base URL' });
    expect(lp.requests('m')[0]?.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it.each([
    ['OPENAI_BASE_URL', 'openai:m'],
    ['ANTHROPIC_BASE_URL', 'anthropic:m'],
  ])(
    'a %s that is not an http(s) URL is refused at start; set later, Misconfigured naming it',
    async (variable, model) => {
      expect(() => builtinRegistry(lp, { [variable]: 'localhost:8080' })).toThrow(ProvidersConfigError);
      const env: Record<string, string | undefined> = { ...builtinEnv(lp) };
      const registry = createProviderRegistry({}, { env });
      env[variable] = 'localhost:8080';
      const { details } = await attemptFailure(runAttempt(registry, input(model)).done);
      expect(details.class).toBe('Misconfigured');
      expect(details.message).toContain(
        `takes its base URL from ${variable}: \`${variable}\` must be an http(s) URL, not localhost:`,
      );
      expect(lp.requestCount()).toBe(0);
    },
  );

  it('an empty base URL variable means the provider default', () => {
    const registry = builtinRegistry(lp, { OPENAI_BASE_URL: ' ', ANTHROPIC_BASE_URL: '' });
    expect(registry.resolve('openai:m').model).toMatchObject({ modelId: 'm' });
    expect(registry.resolve('anthropic:m').model).toMatchObject({ modelId: 'm' });
  });
});

describe('built-in failures and secrets', () => {
  it('openai 429 insufficient_quota -> QuotaExhausted', async () => {
    lp.script('m', [quotaExhausted()]);
    const { details } = await attemptFailure(runAttempt(builtinRegistry(lp), input('openai:m')).done);
    expect(details).toMatchObject({ class: 'QuotaExhausted', status: 429, code: 'insufficient_quota' });
  });

  it('openai 429 rate limit with retry-after -> RateLimited, retryAfterMs', async () => {
    lp.script('m', [rateLimited(2)]);
    const { details } = await attemptFailure(runAttempt(builtinRegistry(lp), input('openai:m')).done);
    expect(details).toMatchObject({ class: 'RateLimited', status: 429, retryAfterMs: 2000 });
  });

  it('openai 400 context_length_exceeded -> ContextTooLong (a code, no message read)', async () => {
    lp.script('m', [fail(400, { code: 'context_length_exceeded', message: 'too many tokens' })]);
    const { details } = await attemptFailure(runAttempt(builtinRegistry(lp), input('openai:m')).done);
    expect(details).toMatchObject({ class: 'ContextTooLong', code: 'context_length_exceeded' });
  });

  it.each([
    ['openai', OPENAI_KEY],
    ['anthropic', ANTHROPIC_KEY],
  ])('%s: a provider echoing the key back never puts it into the failure', async (provider, key) => {
    lp.script('m', [echoAuth()]);
    const { failure, details } = await attemptFailure(
      runAttempt(builtinRegistry(lp), input(`${provider}:m`)).done,
    );
    expect(details.class).toBe('AuthFailed');
    expect(details.message).toContain('invalid api key');
    expect(details.message).toContain('[redacted]');
    expect(JSON.stringify(details)).not.toContain(key);
    expect(failure.message).not.toContain(key);
  });

  it('credential headers of a built-in type entry are scrubbed like the key', () => {
    const registry = createProviderRegistry(
      {
        openai: { type: 'openai', headers: { 'X-Proxy-Token': 'proxy-secret-0123', 'OpenAI-Project': 'p1' } },
      },
      { env: { OPENAI_API_KEY: OPENAI_KEY } },
    );
    expect(registry.resolve('openai:m').secrets).toEqual([OPENAI_KEY, 'proxy-secret-0123']);
  });
});

describe('providers-file entries of type openai and anthropic', () => {
  it('accepts them with every field optional but the type', () => {
    const config = {
      gpt: { type: 'openai' },
      claude: {
        type: 'anthropic',
        baseURL: 'https://proxy.example/v1',
        apiKeyEnv: 'TEAM_KEY',
        headers: { 'anthropic-beta': 'x' },
      },
    };
    expect(parseProvidersConfig(config)).toEqual(config);
  });

  it.each([
    [
      'an unknown field',
      { gpt: { type: 'openai', organization: 'o' } },
      /`gpt.organization` is not a known field/,
    ],
    ['a baseURL that is no URL', { c: { type: 'anthropic', baseURL: 'nope' } }, /`c.baseURL` is not a URL/],
    ['a key in the file', { gpt: { type: 'openai', apiKey: 'sk-x' } }, /keys never go in this file/],
  ])('refuses %s', (_name, config, pattern) => {
    expect(() => parseProvidersConfig(config)).toThrow(ProvidersConfigError);
    expect(() => parseProvidersConfig(config)).toThrow(pattern);
  });

  it('an entry named openai replaces the built-in', async () => {
    const registry = createProviderRegistry(
      { openai: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOCAL_KEY' } },
      { env: { LOCAL_KEY } },
    );
    lp.script('m', [ok('from the replacement')]);
    const result = await runAttempt(registry, input('openai:m')).done;
    expect(result).toMatchObject({ text: 'from the replacement', provider: 'openai' });
    expect(lp.requests('m')[0]?.headers['authorization']).toBe(`Bearer ${LOCAL_KEY}`);
    expect(registry.names()).toEqual(['openai', 'anthropic']);
  });

  it('an entry named anthropic replaces the built-in: its baseURL beats ANTHROPIC_BASE_URL', async () => {
    const registry = createProviderRegistry(
      { anthropic: { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'TEAM_ANTHROPIC_KEY' } },
      { env: { TEAM_ANTHROPIC_KEY: 'sk-ant-team-key-987654', ANTHROPIC_BASE_URL: nowhere } },
    );
    lp.script('m', [ok('through the file entry')]);
    await expect(runAttempt(registry, input('anthropic:m')).done).resolves.toMatchObject({
      text: 'through the file entry',
    });
    expect(lp.requests('m')[0]?.headers['x-api-key']).toBe('sk-ant-team-key-987654');
  });

  it('an entry under another name reads its own key variable, and is Misconfigured without it', async () => {
    const config = {
      claude: { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'TEAM_KEY' },
    } as const;
    const missing = createProviderRegistry(config, { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } });
    const { details } = await attemptFailure(runAttempt(missing, input('claude:m')).done);
    expect(details).toMatchObject({ class: 'Misconfigured' });
    expect(details.message).toContain('provider "claude" reads its key from TEAM_KEY');

    lp.script('m', [ok()]);
    const present = createProviderRegistry(config, { env: { TEAM_KEY: 'sk-ant-team-000000' } });
    await expect(runAttempt(present, input('claude:m')).done).resolves.toMatchObject({ provider: 'claude' });
  });
});
