import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequestResult } from '../../../activities/index.js';
import { ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { attemptFailure, builtinRegistry, input, loopbackRegistry, runAttempt } from './helpers.js';

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

/** Each provider type with its own wire name of "stopped at the output limit". */
const TYPES: readonly (readonly [
  type: string,
  model: string,
  limit: string,
  registry: () => ProviderRegistry,
])[] = [
  ['openai-compatible', 'local:m', 'length', () => loopbackRegistry(lp)],
  ['openai', 'openai:m', 'length', () => builtinRegistry(lp)],
  ['anthropic', 'anthropic:m', 'max_tokens', () => builtinRegistry(lp)],
];

const modes = [
  ['', {}],
  [' (streamed)', { stream: { batchMs: 60_000 } }],
] as const;

describe('an answer that stopped at the output limit', () => {
  const cases = TYPES.flatMap(([type, model, limit, registry]) =>
    modes.map(([mode, extra]) => [`${type}${mode}`, model, limit, registry, extra] as const),
  );

  it.each(cases)(
    '%s with neither text nor tool call -> OutputLimit (billed), not ParseFailed',
    async (_name, model, limit, registry, extra) => {
      lp.script('m', [ok('', { finishReason: limit, usage: { inputTokens: 9, outputTokens: 64 } })]);
      const { details } = await attemptFailure(runAttempt(registry(), input(model, extra)).done);
      expect(details).toMatchObject({ class: 'OutputLimit', status: 200, usage: { outputTokens: 64 } });
      expect(details.message).toContain('maxOutputTokens');
    },
  );

  it.each(TYPES)(
    '%s with text -> a success whose finish reason is length',
    async (_type, model, limit, registry) => {
      lp.script('m', [ok('half an answ', { finishReason: limit })]);
      const result = (await runAttempt(registry(), input(model)).done) as ModelRequestResult;
      expect(result).toMatchObject({ text: 'half an answ', finishReason: 'length' });
    },
  );

  it('an empty answer that stopped normally is still ParseFailed', async () => {
    lp.script('m', [ok('', { finishReason: 'stop' })]);
    const { details } = await attemptFailure(runAttempt(loopbackRegistry(lp), input('local:m')).done);
    expect(details.class).toBe('ParseFailed');
  });
});
