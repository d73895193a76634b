import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import {
  genAiProviderOfAiSdk,
  genAiProviderOfConfig,
  genAiProviderOfHost,
} from '../../../activities/providers/gen-ai-provider.js';

describe('gen_ai.provider.name of each provider', () => {
  it.each([
    ['openai.chat', 'openai'],
    ['openai.responses', 'openai'],
    ['anthropic.messages', 'anthropic'],
    ['google.generative-ai', 'gcp.gemini'],
    ['google.vertex.chat', 'gcp.vertex_ai'],
    ['amazon-bedrock', 'aws.bedrock'],
    ['azure.chat', 'azure.ai.openai'],
    ['mistral.chat', 'mistral_ai'],
    ['groq.chat', 'groq'],
    ['xai.chat', 'x_ai'],
    ['deepseek.chat', 'deepseek'],
    ['perplexity', 'perplexity'],
    ['ollama.chat', 'ollama.chat'],
  ])('an AI SDK model of provider %s: %s', (provider, expected) => {
    expect(genAiProviderOfAiSdk(provider)).toBe(expected);
  });

  it('reads a known service from the host of a base URL, and nothing from any other host', () => {
    expect(genAiProviderOfHost('https://api.groq.com/openai/v1')).toBe('groq');
    expect(genAiProviderOfHost('https://my-team.openai.azure.com/openai')).toBe('azure.ai.openai');
    expect(genAiProviderOfHost('http://127.0.0.1:8080/v1')).toBeUndefined();
    expect(genAiProviderOfHost('https://evil-api.groq.com.example/v1')).toBeUndefined();
    expect(genAiProviderOfHost(undefined)).toBeUndefined();
  });

  it('an openai-compatible provider speaks OpenAI: `openai`, unless its host is a known service', () => {
    expect(genAiProviderOfConfig({ type: 'openai-compatible', baseURL: 'http://127.0.0.1:2/v1' })).toBe(
      'openai',
    );
    expect(genAiProviderOfConfig({ type: 'openai-compatible', baseURL: 'https://api.deepseek.com/v1' })).toBe(
      'deepseek',
    );
    expect(genAiProviderOfConfig({ type: 'google' })).toBe('gcp.gemini');
  });

  it("the worker's config names every provider, registered ones from their model, or their name when create throws", async () => {
    const { modelRetryConfig } = createActivities({
      env: {},
      providers: createProviderRegistry({
        local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:2/v1' },
      }),
      aiSdkProviders: {
        mine: {
          create: () => ({ languageModel: () => ({ provider: 'groq.chat', specificationVersion: 'v4' }) }),
          secretEnv: [],
        },
        mistral: {
          create: () => {
            throw new Error('MISTRAL_API_KEY is unset');
          },
          secretEnv: ['MISTRAL_API_KEY'],
        },
      },
    });
    expect((await modelRetryConfig()).genAiProviders).toEqual({
      local: 'openai',
      openai: 'openai',
      anthropic: 'anthropic',
      mine: 'groq',
      mistral: 'mistral_ai',
    });
  });
});
