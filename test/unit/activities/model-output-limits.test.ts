import { describe, expect, it } from 'vitest';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';

const local = { type: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1' } as const;

/** The problems a model entry is refused with. */
function problems(model: unknown): string {
  try {
    parseProvidersConfig({ local: { ...local, models: { fast: model } } }, 'providers.json');
  } catch (error) {
    if (error instanceof ProvidersConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('the config was accepted');
}

describe("a model's output limit in the providers file (maxOutputTokens)", () => {
  it('is read per provider:model, beside its price and limits', () => {
    const registry = createProviderRegistry({
      local: {
        ...local,
        models: {
          fast: { maxOutputTokens: 8192, pricing: { inputPerMTok: 1, outputPerMTok: 2 } },
          tiny: { maxOutputTokens: 1 },
          plain: {},
        },
      },
    });
    expect(registry.outputLimits?.()).toEqual({ 'local:fast': 8192, 'local:tiny': 1 });
  });

  it.each([
    [0, '(got 0)'],
    [-5, '(got -5)'],
    [1024.5, '(got 1024.5)'],
    ['8192', '(got "8192")'],
    [null, '(got null)'],
    [Number.MAX_SAFE_INTEGER + 2, '(got 9007199254740992)'],
  ])('refuses %j, naming the field and the fix', (value, got) => {
    expect(problems({ maxOutputTokens: value })).toBe(
      "`local.models.fast.maxOutputTokens` must be a whole number of tokens, 1 or more: the model's output " +
        `limit as its provider documents it, like 8192 ${got}`,
    );
  });

  it('is one of the fields a model entry knows', () => {
    expect(problems({ maxTokens: 10 })).toBe(
      '`local.models.fast.maxTokens` is not a known field of a model (known: pricing, limits, prefill, maxOutputTokens)',
    );
  });
});
