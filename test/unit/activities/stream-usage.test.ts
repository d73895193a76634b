import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeRequest } from '../../../activities/attempt/prompt.js';
import { successOf } from '../../../activities/attempt/result.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import type { DeltaPublisher } from '../../../activities/attempt/delta-publisher.js';
import { parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { ProvidersConfig } from '../../../activities/providers/config.js';
import { ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { builtinEnv, input } from './helpers.js';

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

const quiet: DeltaPublisher = {
  add: () => undefined,
  finish: () => Promise.resolve(),
  abandon: () => Promise.resolve(),
  sent: 0,
};

/** One streamed attempt of `model` under `config`: the attempt's result and the body the server received. */
async function streamed(config: ProvidersConfig, model: string) {
  lp.script('m', [ok('counted', { usage: { inputTokens: 30, outputTokens: 5 } })]);
  const resolved = createProviderRegistry(config, { env: builtinEnv(lp) }).resolve(model);
  const options = decodeRequest(input(model).request);
  const result = await streamAnswer(resolved.model, options, quiet);
  const times = { startedAt: new Date(0).toISOString(), endedAt: new Date(1).toISOString() };
  const body = lp.requests('m')[0]?.body as { stream?: boolean; stream_options?: unknown };
  return { success: successOf(result, resolved, times), body };
}

describe('a streamed request asks for usage', () => {
  it.each<[string, ProvidersConfig, string, unknown]>([
    [
      'openai-compatible, by default',
      { local: { type: 'openai-compatible', baseURL: 'http://x/v1' } },
      'local:m',
      { include_usage: true },
    ],
    [
      'openai-compatible, streamUsage: true',
      { local: { type: 'openai-compatible', baseURL: 'http://x/v1', streamUsage: true } },
      'local:m',
      { include_usage: true },
    ],
    ['openai (its SDK always asks)', {}, 'openai:m', { include_usage: true }],
    [
      'openai-compatible, streamUsage: false (a server that refuses stream_options)',
      { local: { type: 'openai-compatible', baseURL: 'http://x/v1', streamUsage: false } },
      'local:m',
      undefined,
    ],
  ])('%s', async (_name, config, model, streamOptions) => {
    // The loopback provider's base URL is known only once it started: put it in the entry here.
    const entry = config.local;
    const withBase: ProvidersConfig =
      entry?.type === 'openai-compatible' ? { local: { ...entry, baseURL: lp.openaiBaseURL } } : config;
    const { success, body } = await streamed(withBase, model);
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual(streamOptions);
    // The loopback provider reports usage either way; a real server reports it only when asked.
    expect(success.usage).toMatchObject({ inputTokens: 30, outputTokens: 5 });
  });
});

describe('`streamUsage` in the providers file', () => {
  it.each<[string, unknown, RegExp | undefined]>([
    ['true', true, undefined],
    ['false', false, undefined],
    ['left out', undefined, undefined],
    ['a string', 'no', /`local\.streamUsage` must be true or false, not "no"/],
    ['a number', 0, /`local\.streamUsage` must be true or false, not 0/],
  ])('openai-compatible, %s', (_name, value, problem) => {
    const file = {
      local: {
        type: 'openai-compatible',
        baseURL: 'http://127.0.0.1:8080/v1',
        ...(value === undefined ? {} : { streamUsage: value }),
      },
    };
    if (problem === undefined) expect(() => parseProvidersConfig(file)).not.toThrow();
    else expect(() => parseProvidersConfig(file)).toThrow(problem);
  });

  it.each(['openai', 'anthropic', 'google', 'openai-responses'])(
    'is not a field of a "%s" provider (its SDK always asks for usage)',
    (type) => {
      expect(() => parseProvidersConfig({ p: { type, streamUsage: false } })).toThrow(
        new RegExp(`\`p\\.streamUsage\` is not a known field of a "${type}" provider`),
      );
    },
  );
});
