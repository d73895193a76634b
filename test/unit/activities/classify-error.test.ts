import { APICallError, JSONParseError } from '@ai-sdk/provider';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { observeError, providerErrorOf, socketCodeOf } from '../../../activities/attempt/classify-error.js';
import type { ProviderRegistry, ResolvedModel } from '../../../activities/providers/registry.js';
import { classify } from '../../../policy/index.js';
import { attemptFailure, input, runAttempt } from './helpers.js';

const url = 'http://provider.test/v1/chat/completions';
const apiError = (fields: Partial<ConstructorParameters<typeof APICallError>[0]>) =>
  new APICallError({ message: 'm', url, requestBodyValues: { prompt: 'secret' }, ...fields });
const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

describe('observeError', () => {
  it.each([
    [
      'OpenAI 429 insufficient_quota',
      apiError({
        statusCode: 429,
        data: { error: { type: 'insufficient_quota', code: 'insufficient_quota' } },
      }),
      'QuotaExhausted',
    ],
    [
      'Anthropic 529 overloaded_error',
      apiError({
        statusCode: 529,
        data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      }),
      'ServerError',
    ],
    [
      'Anthropic 402 billing_error',
      apiError({ statusCode: 402, data: { type: 'error', error: { type: 'billing_error' } } }),
      'QuotaExhausted',
    ],
    [
      'a code only in the raw response body',
      apiError({ statusCode: 400, responseBody: '{"error":{"code":"context_length_exceeded"}}' }),
      'ContextTooLong',
    ],
    [
      'ENOTFOUND under a fetch failure',
      apiError({ cause: fetchFailed(withCode('ENOTFOUND')) }),
      'ConnectFailed',
    ],
    [
      'ECONNREFUSED in an AggregateError',
      apiError({ cause: fetchFailed(Object.assign(new AggregateError([]), { code: 'ECONNREFUSED' })) }),
      'ConnectFailed',
    ],
    ['ECONNRESET after sending', apiError({ cause: fetchFailed(withCode('ECONNRESET')) }), 'ConnectionLost'],
    [
      'a 200 cut mid-body',
      apiError({ statusCode: 200, cause: withCode('UND_ERR_SOCKET', 'other side closed') }),
      'ConnectionLost',
    ],
    [
      'a 200 with invalid JSON',
      apiError({ statusCode: 200, cause: new JSONParseError({ text: '{', cause: new SyntaxError('x') }) }),
      'ParseFailed',
    ],
    [
      'undici headers timeout',
      apiError({ cause: fetchFailed(withCode('UND_ERR_HEADERS_TIMEOUT')) }),
      'ResponseTimeout',
    ],
    ['a bare socket error', fetchFailed(withCode('EAI_AGAIN')), 'ConnectFailed'],
    ['something else', new Error('surprise'), 'Unknown'],
  ] as const)('%s', (_name, error, expected) => {
    expect(classify(observeError(error).observation)).toBe(expected);
  });

  it('reads no message wording: a 500 whose message "says" quota is still a ServerError', () => {
    const { observation } = observeError(
      apiError({ statusCode: 500, message: 'rate limit exceeded, insufficient_quota' }),
    );
    expect(classify(observation)).toBe('ServerError');
  });

  it('lower-cases the response headers', () => {
    const { observation } = observeError(
      apiError({ statusCode: 429, responseHeaders: { 'Retry-After': '2' } }),
    );
    expect(observation.headers).toEqual({ 'retry-after': '2' });
  });

  it('finds the first string code of a cause chain, and survives a cycle', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    const b = Object.assign(new Error('b', { cause: a }), { code: 42 });
    a.cause = b;
    expect(socketCodeOf(a)).toBeUndefined();
    expect(socketCodeOf(new Error('x', { cause: withCode('EPIPE') }))).toBe('EPIPE');
  });

  it('reads provider codes and types of both wire formats', () => {
    expect(
      providerErrorOf({ error: { type: 'invalid_request_error', code: 'context_length_exceeded' } }),
    ).toEqual({
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    });
    expect(providerErrorOf({ type: 'error', error: { type: 'rate_limit_error' } })).toEqual({
      type: 'rate_limit_error',
    });
    expect(providerErrorOf({ code: 'quota_exceeded' })).toEqual({ code: 'quota_exceeded' });
    expect(providerErrorOf('not json')).toEqual({});
  });
});

/** A registry whose one model throws `error` (tests may inject any registry). */
function throwingRegistry(error: unknown, hook?: ResolvedModel['refineObservation']): ProviderRegistry {
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
    resolve: () => ({
      provider: 'fake',
      modelId: 'm',
      model,
      secrets: [],
      ...(hook ? { refineObservation: hook } : {}),
    }),
  };
}

describe('the provider-specific pattern hook', () => {
  it("lets a provider's adapter state what only its message says (Anthropic's prompt is too long)", async () => {
    const error = apiError({
      statusCode: 400,
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
      data: { type: 'error', error: { type: 'invalid_request_error' } },
    });
    const plain = await attemptFailure(runAttempt(throwingRegistry(error), input('fake:m')).done);
    expect(plain.details.class).toBe('BadRequest');
    const hooked = throwingRegistry(error, (e, o) =>
      APICallError.isInstance(e) && /^prompt is too long/.test(e.message)
        ? { ...o, contextTooLong: true }
        : o,
    );
    const refined = await attemptFailure(runAttempt(hooked, input('fake:m')).done);
    expect(refined.details).toMatchObject({
      class: 'ContextTooLong',
      status: 400,
      code: 'invalid_request_error',
    });
  });
});
