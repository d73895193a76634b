import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, ProvidersConfigError } from '../../../activities/index.js';
import type { AiSdkProviderRegistration, Env } from '../../../activities/index.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { echoAuth, ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { SHARED_FAULTS } from './family-faults.js';
import { attemptFailure, input, quietEnvironment } from './helpers.js';

/** A key that no pattern of the scrubber recognises: only `secretEnv` can keep it out of a message. */
const PLAIN_KEY = 'plainvalue0123456789xyz';

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

/** An OpenAI-compatible AI SDK provider on the loopback provider, its key read from `MY_KEY`. */
function compatible(secretEnv: readonly string[] = ['MY_KEY']): AiSdkProviderRegistration {
  return {
    create: (env, { fetch }) =>
      createOpenAICompatible({ name: 'mine', baseURL: lp.openaiBaseURL, apiKey: env.MY_KEY ?? '', fetch }),
    secretEnv,
  };
}

function run(registration: AiSdkProviderRegistration, model = 'mine:m', env: Env = { MY_KEY: PLAIN_KEY }) {
  const { modelRequest } = createActivities({ env, aiSdkProviders: { mine: registration } });
  return quietEnvironment().run(modelRequest, input(model));
}

describe('an AI SDK provider registered in the worker', () => {
  it('answers as `name:model`, built from the environment, beside the built-ins', async () => {
    lp.script('m', [ok('hello from mine', { usage: { inputTokens: 2, outputTokens: 3 } })]);
    const result = await run(compatible());
    expect(result).toMatchObject({
      text: 'hello from mine',
      provider: 'mine',
      usage: { inputTokens: 2, outputTokens: 3, totalTokens: 5 },
    });
    expect(lp.requests('m')[0]?.headers['authorization']).toBe(`Bearer ${PLAIN_KEY}`);
    expect(lp.requests('m')[0]?.headers['x-request-id']).toBe('wf-test/c1.1');
  });

  it('fails the attempt as Misconfigured when a secretEnv variable is unset, sending nothing', async () => {
    const { details } = await attemptFailure(run(compatible(['MY_KEY', 'MY_OTHER_KEY'])));
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('provider "mine" reads MY_OTHER_KEY, which is empty or unset');
    expect(lp.requestCount()).toBe(0);
  });

  it('scrubs the values of secretEnv from every message and code, as a built-in key', async () => {
    lp.script('m', [echoAuth(401, { everywhere: true })]);
    const { details } = await attemptFailure(run(compatible()));
    expect(details.class).toBe('AuthFailed');
    expect(JSON.stringify(details)).not.toContain(PLAIN_KEY);
    expect(details.code).toBe('[redacted]');
    expect(details.message).toMatch(/^Incorrect API key provided: \[redacted\]\./);
  });

  it('(a key it does not list in secretEnv is not known to be one: that is what the list is for)', async () => {
    lp.script('m', [echoAuth(401, { everywhere: true })]);
    const { details } = await attemptFailure(run(compatible([])));
    expect(details.message).toContain(PLAIN_KEY);
  });

  it('a create that throws is Misconfigured, its message scrubbed of the secrets', async () => {
    const broken: AiSdkProviderRegistration = {
      create: (env) => {
        throw new Error(`cannot use ${env.MY_KEY}`);
      },
      secretEnv: ['MY_KEY'],
    };
    const { details } = await attemptFailure(run(broken));
    expect(details).toMatchObject({ class: 'Misconfigured' });
    expect(details.message).toBe('provider "mine" could not make model "m": cannot use [redacted]');
  });

  it('a model of an older AI SDK specification is Misconfigured, naming what is needed', async () => {
    const old: AiSdkProviderRegistration = {
      create: () => ({
        languageModel: () => ({ specificationVersion: 'v2', doGenerate() {}, doStream() {} }),
      }),
      secretEnv: [],
    };
    const { details } = await attemptFailure(run(old));
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('LanguageModelV4');
  });

  it('an unknown provider names the registered ones too', async () => {
    const { details } = await attemptFailure(run(compatible(), 'nope:m'));
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('known: openai, anthropic, mine');
  });
});

describe('registrations are checked when the activities are made (the worker refuses to start)', () => {
  const refused =
    (providers: unknown, file = {}) =>
    () =>
      createActivities({
        env: {},
        providers: createProviderRegistry(file, { env: {} }),
        aiSdkProviders: providers as Record<string, AiSdkProviderRegistration>,
      });

  it('refuses the name of a built-in provider', () => {
    expect(refused({ openai: compatible() })).toThrow(ProvidersConfigError);
    expect(refused({ openai: compatible() })).toThrow(
      /`aiSdkProviders.openai` has the name of a built-in provider: register it under another name/,
    );
  });

  it('refuses the name of a providers-file provider', () => {
    const file = { local: { type: 'openai-compatible' as const, baseURL: 'http://127.0.0.1:2/v1' } };
    expect(refused({ local: compatible() }, file)).toThrow(
      /`aiSdkProviders.local` has the name of a providers-file provider/,
    );
  });

  it('lists every problem: no create, no secretEnv, a value instead of a variable name, a bad name', () => {
    let error: unknown;
    try {
      refused({
        a: { secretEnv: [] },
        b: { create: () => ({}) },
        c: { create: () => ({}), secretEnv: ['sk-live 123'] },
        'd:e': compatible(),
      })();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProvidersConfigError);
    expect((error as ProvidersConfigError).problems).toEqual([
      '`aiSdkProviders.a.create` must be a function (env) => an AI SDK provider',
      '`aiSdkProviders.b.secretEnv` must list the environment variables the provider reads its keys from (`[]` when none), so their values are scrubbed',
      '`aiSdkProviders.c.secretEnv` must hold environment variable names (like "MISTRAL_API_KEY"), not "sk-live 123"',
      "`aiSdkProviders.d:e`: a provider name may hold only letters, digits, '.', '_' and '-' (no ':')",
    ]);
  });
});

describe('a registered provider is classified by the generic rows', () => {
  it.each(SHARED_FAULTS)('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const { details } = await attemptFailure(run(compatible()));
    expect(details).toMatchObject(expected);
  });
});
