import { describe, expect, it } from 'vitest';
import { checkModelCall } from '../../../client/model-call-client.js';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import { createActivities } from '../../../activities/index.js';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const call = (budget: unknown) => () => checkModelCall({ model: 'local:m', prompt: 'hi', budget } as never);
const turn = (budget: unknown) => () =>
  checkAgentTurn({ model: 'local:m', prompt: 'hi', budget } as never, NOW);

describe('a budget is checked before anything starts', () => {
  it('accepts a call and a turn with a budget', () => {
    expect(call({ maxCostUsd: 0.5, maxTotalTokens: 20_000 })).not.toThrow();
    expect(turn({ maxInputTokens: 1000, maxOutputTokens: 0 })).not.toThrow();
  });

  it.each([
    [{ maxCostUsd: -0.01 }, '`budget.maxCostUsd`: must be a finite number of USD, 0 or more (got -0.01)'],
    [
      { maxTotalTokens: null },
      '`budget.maxTotalTokens`: must be a finite number of tokens, 0 or more (got null)',
    ],
    [{ maxInputTokens: 10.5 }, '`budget.maxInputTokens`: must be a whole number of tokens'],
    [{ usd: 1 }, '`budget.usd`: unknown field of `budget`; the fields are maxCostUsd, maxInputTokens'],
    ['1 USD', '`budget`: must be an object such as'],
  ])('refuses %j on a call and on a turn, naming the field', (budget, message) => {
    expect(call(budget)).toThrow(message);
    expect(turn(budget)).toThrow(message);
  });
});

describe('pricing per model in the providers file', () => {
  const entry = { type: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1' } as const;

  it('is read per provider:model and given to workflows through the worker config', async () => {
    const registry = createProviderRegistry({
      local: {
        ...entry,
        models: { fast: { pricing: { inputPerMTok: 0.15, outputPerMTok: 0.6 } }, slow: {} },
      },
    });
    expect(registry.pricing?.()).toEqual({ 'local:fast': { inputPerMTok: 0.15, outputPerMTok: 0.6 } });
    expect(registry.resolve('local:fast').pricing).toEqual({ inputPerMTok: 0.15, outputPerMTok: 0.6 });
    expect(registry.resolve('local:slow').pricing).toBeUndefined();
    const config = await createActivities({ providers: registry }).modelRetryConfig();
    expect(config.pricing).toEqual({ 'local:fast': { inputPerMTok: 0.15, outputPerMTok: 0.6 } });
  });

  it.each([
    [
      { fast: { pricing: { inputPerMTok: -1, outputPerMTok: 1 } } },
      '`local.models.fast.pricing.inputPerMTok` must be',
    ],
    [{ fast: { pricing: { inputPerMTok: 1 } } }, '`local.models.fast.pricing.outputPerMTok` must be'],
    [{ fast: { price: 1 } }, '`local.models.fast.price` is not a known field of a model'],
    [{ fast: { pricing: 'cheap' } }, '`local.models.fast.pricing` must be an object'],
    [[], '`local.models` must be an object of model names'],
  ])('refuses models %j, naming the field', (models, message) => {
    expect(() => parseProvidersConfig({ local: { ...entry, models } })).toThrow(ProvidersConfigError);
    expect(() => parseProvidersConfig({ local: { ...entry, models } })).toThrow(message);
  });
});
