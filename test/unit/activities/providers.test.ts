import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import {
  MisconfiguredError,
  createProviderRegistry,
  loadProvidersFile,
  parseModelName,
  providersFromEnv,
} from '../../../activities/providers/registry.js';
import { startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, input, quietEnvironment } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'model-retry-providers-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const local = {
  type: 'openai-compatible',
  baseURL: 'http://127.0.0.1:8080/v1',
  apiKeyEnv: 'LOCAL_KEY',
} as const;

/** The problems a config is refused with. */
function problems(config: unknown): readonly string[] {
  try {
    parseProvidersConfig(config, 'test.json');
  } catch (error) {
    if (error instanceof ProvidersConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('the providers file', () => {
  it('accepts the documented example', () => {
    expect(parseProvidersConfig({ local })).toEqual({ local });
  });

  it.each([
    ['not an object', [], /expected an object of providers by name/],
    ['a name with a colon', { 'a:b': local }, /may hold only letters.*no ':'/],
    ['an entry that is not an object', { local: 'x' }, /`local` must be an object/],
    [
      'a missing type',
      { local: { baseURL: local.baseURL } },
      /`local.type` is missing: set it to one of "openai-compatible"/,
    ],
    ['an unknown type', { local: { ...local, type: 'grpc' } }, /`local.type` is "grpc"/],
    [
      'a missing baseURL',
      { local: { type: 'openai-compatible' } },
      /`local.baseURL` is missing: set it to the API's base URL/,
    ],
    [
      'a baseURL that is no URL',
      { local: { ...local, baseURL: 'localhost' } },
      /`local.baseURL` is not a URL/,
    ],
    [
      'a baseURL that is not http',
      { local: { ...local, baseURL: 'ftp://x/v1' } },
      /must be an http\(s\) URL/,
    ],
    // Found from outside: the worker started, and every attempt failed `Unknown` before sending anything.
    [
      'a baseURL on a port fetch refuses',
      { local: { ...local, baseURL: 'http://127.0.0.1:6000/v1' } },
      /`local.baseURL` uses port 6000, which fetch refuses to connect to .*: serve the API on another port/,
    ],
    [
      "a built-in provider's baseURL on a port fetch refuses",
      { openai: { type: 'openai', baseURL: 'https://proxy.example:10080/v1' } },
      /`openai.baseURL` uses port 10080/,
    ],
    [
      'a key in apiKeyEnv',
      { local: { ...local, apiKeyEnv: 'sk-abc 123' } },
      /`local.apiKeyEnv` must name an environment variable/,
    ],
    [
      'a key in the file',
      { local: { ...local, apiKey: 'sk-x' } },
      /`local.apiKey` is not allowed: keys never go in this file/,
    ],
    [
      'an unknown field',
      { local: { ...local, baseUrl: 'x' } },
      /`local.baseUrl` is not a known field.*known: type, baseURL/,
    ],
    [
      'a header that is not a string',
      { local: { ...local, headers: { 'X-A': 1 } } },
      /`local.headers.X-A` must be a string/,
    ],
  ] as const)('refuses %s, naming the field and the fix', (_name, config, pattern) => {
    expect(problems(config).join('\n')).toMatch(pattern);
  });

  it('lists every problem at once', () => {
    expect(problems({ a: { type: 'openai-compatible' }, b: { ...local, extra: 1 } })).toHaveLength(2);
  });

  it('loads a file, and names the file in its errors', () => {
    expect(loadProvidersFile(file('ok.json', { local })).names()).toEqual(['local', 'openai', 'anthropic']);
    expect(() => loadProvidersFile(file('bad.json', '{ nope'))).toThrow(/bad\.json: not valid JSON/);
    expect(() => loadProvidersFile(join(dir, 'missing.json'))).toThrow(
      /missing\.json: cannot read the providers file \(ENOENT\)/,
    );
  });

  it('is found through MODEL_RETRY_PROVIDERS; without it the registry holds only the built-ins', () => {
    expect(providersFromEnv({ MODEL_RETRY_PROVIDERS: file('env.json', { local }) }).names()).toEqual([
      'local',
      'openai',
      'anthropic',
    ]);
    expect(providersFromEnv({}).names()).toEqual(['openai', 'anthropic']);
  });
});

describe('resolving provider:model', () => {
  const registry = createProviderRegistry({ local }, { env: { LOCAL_KEY: 'sk-test-1234567' } });

  it('splits at the first colon', () => {
    expect(parseModelName('ollama:llama3:8b')).toEqual({ provider: 'ollama', modelId: 'llama3:8b' });
  });

  it('gives the AI SDK model, the provider name and the key as a secret', () => {
    const resolved = registry.resolve('local:fast');
    expect(resolved).toMatchObject({ provider: 'local', modelId: 'fast', secrets: ['sk-test-1234567'] });
    expect(resolved.model).toMatchObject({ specificationVersion: 'v4', modelId: 'fast' });
  });

  it.each([
    ['a malformed name', 'fast', /not `provider:model`/],
    ['an empty model', 'local:', /not `provider:model`/],
    ['an unknown provider', 'cloud:x', /unknown provider "cloud".*known: local, openai, anthropic/],
  ])('refuses %s as Misconfigured', (_name, model, pattern) => {
    expect(() => registry.resolve(model)).toThrow(MisconfiguredError);
    expect(() => registry.resolve(model)).toThrow(pattern);
  });

  it('reads the key at request time; an empty key variable is Misconfigured', () => {
    const env: Record<string, string | undefined> = { LOCAL_KEY: '' };
    const late = createProviderRegistry({ local }, { env });
    expect(() => late.resolve('local:fast')).toThrow(/reads its key from LOCAL_KEY, which is empty or unset/);
    env.LOCAL_KEY = 'sk-set-later-123';
    expect(late.resolve('local:fast').secrets).toEqual(['sk-set-later-123']);
  });

  it('builds a model once for the same settings, and again when the key, base URL or a header changes', () => {
    const env: Record<string, string | undefined> = { LOCAL_KEY: 'sk-first-1234567', TEAM: 'a' };
    const headed = { ...local, headersFromEnv: { 'X-Team': 'TEAM' } };
    const r = createProviderRegistry({ local: headed, other: local }, { env });
    const first = r.resolve('local:fast');
    expect(r.resolve('local:fast')).toBe(first);
    expect(r.resolve('local:fast').model).toBe(first.model);
    // Another model, or the same model of another provider, is a model of its own.
    expect(r.resolve('local:slow').model).not.toBe(first.model);
    expect(r.resolve('other:fast').model).not.toBe(first.model);
    env.LOCAL_KEY = 'sk-second-7654321';
    const rekeyed = r.resolve('local:fast');
    expect(rekeyed.model).not.toBe(first.model);
    expect(rekeyed.secrets).toContain('sk-second-7654321');
    expect(r.resolve('local:fast')).toBe(rekeyed);
    env.TEAM = 'b';
    const reheaded = r.resolve('local:fast');
    expect(reheaded.model).not.toBe(rekeyed.model);
    expect(reheaded.secrets).toContain('b');
  });

  it('builds a model again when its base URL variable changes', () => {
    const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-open-1234567' };
    const r = createProviderRegistry({}, { env });
    const first = r.resolve('openai:gpt-test');
    expect(r.resolve('openai:gpt-test')).toBe(first);
    env.OPENAI_BASE_URL = 'http://127.0.0.1:8081/v1';
    expect(r.resolve('openai:gpt-test').model).not.toBe(first.model);
  });

  it('keeps built models for a bounded number of names, dropping the least recently used', () => {
    const r = createProviderRegistry({ local }, { env: { LOCAL_KEY: 'sk-test-1234567' } });
    const m0 = r.resolve('local:m0');
    const m1 = r.resolve('local:m1');
    for (let i = 2; i < 256; i++) r.resolve(`local:m${i}`);
    // 256 names kept; m0 used again, so m1 is now the least recently used.
    expect(r.resolve('local:m0')).toBe(m0);
    r.resolve('local:m256');
    expect(r.resolve('local:m0')).toBe(m0);
    expect(r.resolve('local:m1')).not.toBe(m1);
  });

  it('still refuses a key unset after its model was built, and then builds it afresh', () => {
    const env: Record<string, string | undefined> = { LOCAL_KEY: 'sk-first-1234567' };
    const r = createProviderRegistry({ local }, { env });
    const first = r.resolve('local:fast');
    env.LOCAL_KEY = '';
    expect(() => r.resolve('local:fast')).toThrow(MisconfiguredError);
    env.LOCAL_KEY = 'sk-first-1234567';
    const again = r.resolve('local:fast');
    expect(again.model).not.toBe(first.model);
    expect(again.secrets).toEqual(['sk-first-1234567']);
  });

  it('gives a frozen model entry, so no caller can change what later requests are scrubbed of', () => {
    const resolved = createProviderRegistry({ local }, { env: { LOCAL_KEY: 'sk-test-1234567' } }).resolve(
      'local:fast',
    );
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.secrets)).toBe(true);
  });

  it('sends no key when the provider has no apiKeyEnv', () => {
    const open = createProviderRegistry(
      { local: { type: 'openai-compatible', baseURL: local.baseURL } },
      { env: {} },
    );
    expect(open.resolve('local:fast').secrets).toEqual([]);
  });
});

describe('createActivities and Misconfigured attempts', () => {
  let lp: LoopbackProvider;
  beforeAll(async () => {
    lp = await startLoopbackProvider();
  });
  // Each test starts with no recorded request, whatever ran before it (the order is shuffled).
  afterEach(() => {
    lp.assertScriptsConsumed();
    lp.reset();
  });
  afterAll(async () => {
    await lp.close();
  });

  it.each([
    ['an unknown provider', {}, 'cloud:x', /unknown provider "cloud"/],
    ['a missing key variable', { LOCAL_KEY: '' }, 'local:m', /LOCAL_KEY, which is empty or unset/],
  ])('fails %s as Misconfigured without sending anything', async (_name, keys, model, pattern) => {
    const config = file('lp.json', { local: { ...local, baseURL: lp.openaiBaseURL } });
    const { modelRequest } = createActivities({ env: { MODEL_RETRY_PROVIDERS: config, ...keys } });
    const { details } = await attemptFailure(quietEnvironment().run(modelRequest, input(model)));
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toMatch(pattern);
    expect(lp.requestCount()).toBe(0);
  });

  it.each([
    [
      'a file that does not exist',
      () => join(dir, 'missing.json'),
      /missing\.json \(named by MODEL_RETRY_PROVIDERS\): cannot read the providers file \(ENOENT\)/,
    ],
    ['a directory', () => dir, /cannot read the providers file \(EISDIR\)/],
    [
      'an empty file',
      () => file('empty.json', ''),
      /empty\.json \(named by MODEL_RETRY_PROVIDERS\): not valid JSON/,
    ],
    [
      'a list instead of an object',
      () => file('list.json', [local]),
      /expected an object of providers by name/,
    ],
    [
      'an unknown type',
      () => file('type.json', { local: { ...local, type: 'grpc' } }),
      /`local\.type` is "grpc": set it to one of/,
    ],
  ])(
    'refuses %s named by MODEL_RETRY_PROVIDERS at creation, so the worker does not start',
    (_name, path, pattern) => {
      expect(() =>
        createActivities({ env: { MODEL_RETRY_PROVIDERS: path(), LOCAL_KEY: 'sk-abcdefgh' } }),
      ).toThrow(pattern);
      expect(() => createActivities({ env: { MODEL_RETRY_PROVIDERS: path() } })).toThrow(
        ProvidersConfigError,
      );
    },
  );
});
