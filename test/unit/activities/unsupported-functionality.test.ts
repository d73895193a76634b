import { APICallError, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { observeError } from '../../../activities/attempt/classify-error.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { REQUEST_SPEC } from '../../../common/request.js';
import type { WireMessage, WireRequest } from '../../../common/request.js';
import { startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { classify } from '../../../policy/index.js';
import { attemptFailure, input, runAttempt } from './helpers.js';

const unsupported = (functionality: string) => new UnsupportedFunctionalityError({ functionality });

describe('an UnsupportedFunctionalityError is Misconfigured, never Unknown', () => {
  it.each<[string, unknown, string]>([
    ['thrown as it is', unsupported('file part media type video/mp4'), 'Misconfigured'],
    [
      'with a message that reads like a server error',
      unsupported('500 internal server error'),
      'Misconfigured',
    ],
    // Beside it, the same table's neighbours are unchanged.
    ['a plain Error', new Error('surprise'), 'Unknown'],
    [
      'an APICallError 400',
      new APICallError({ message: 'm', url: 'http://x', requestBodyValues: {}, statusCode: 400 }),
      'BadRequest',
    ],
  ])('%s -> %s', (_name, error, expected) => {
    expect(classify(observeError(error).observation)).toBe(expected);
  });
});

/** A registry whose one model throws `error` before sending, from `doGenerate` and `doStream` alike. */
function refusingRegistry(error: unknown): ProviderRegistry {
  const model = {
    specificationVersion: 'v4',
    provider: 'fake',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(error),
    doStream: () => Promise.reject(error),
  } satisfies LanguageModelV4;
  return {
    names: () => ['fake'],
    resolve: () => ({ provider: 'fake', modelId: 'm', model, secrets: [] }),
  } as unknown as ProviderRegistry;
}

describe('the attempt fails Misconfigured when the provider refuses the request before sending it', () => {
  it.each([
    ['doGenerate', {}],
    ['doStream', { stream: { batchMs: 60_000 } }],
  ] as const)('%s', async (_how, extra) => {
    const error = unsupported('tool choice type: required');
    const { details } = await attemptFailure(
      runAttempt(refusingRegistry(error), input('fake:m', extra)).done,
    );
    expect(details).toMatchObject({ class: 'Misconfigured' });
    expect(details.message).toContain('tool choice type: required');
    expect(details.status).toBeUndefined();
  });
});

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

const user = (content: Extract<WireMessage, { role: 'user' }>['content']): WireMessage => ({
  role: 'user',
  content,
});
const wire = (prompt: WireMessage[]): WireRequest => ({ spec: REQUEST_SPEC, prompt });

describe("each family's own refusals, before anything reaches the server", () => {
  const registry = () =>
    createProviderRegistry(
      {
        local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL },
        gem: { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'GEMINI_KEY' },
      },
      { env: { GEMINI_KEY: 'gemini-test-key-0123456789' } },
    );
  it.each<[string, string, WireRequest]>([
    [
      'openai-compatible: a zip archive',
      'local:m',
      wire([
        user([
          { type: 'text', text: 'unpack this' },
          { type: 'file', mediaType: 'application/zip', data: { type: 'data', data: 'UEsDBAo=' } },
        ]),
      ]),
    ],
    [
      'openai-compatible: inline text of a JSON document',
      'local:m',
      wire([user([{ type: 'file', mediaType: 'application/json', data: { type: 'text', text: '{}' } }])]),
    ],
    [
      'openai-compatible: audio of a format it cannot name',
      'local:m',
      wire([user([{ type: 'file', mediaType: 'audio/x-unknown', data: { type: 'data', data: 'AAAA' } }])]),
    ],
    [
      'google: a system message after the conversation began',
      'gem:m',
      wire([user([{ type: 'text', text: 'hi' }]), { role: 'system', content: 'late instructions' }]),
    ],
  ])('%s -> Misconfigured', async (_name, model, request) => {
    const { details } = await attemptFailure(runAttempt(registry(), input(model, { request })).done);
    expect(details.class).toBe('Misconfigured');
    expect(lp.requests()).toEqual([]);
  });
});
