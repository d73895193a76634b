import { APICallError } from '@ai-sdk/provider';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ApplicationFailure } from '@temporalio/common';
import { defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CODE_CHARS, MAX_MESSAGE_CHARS } from '../../../activities/scrub.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { echoAuth, fail, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, input, request, runAttempt } from './helpers.js';

/**
 * A provider's error can be of any size and may repeat anything it received: the key, the headers, the prompt.
 * Whatever it holds, the failure that goes into history (message, stack, details) stays small and holds neither.
 */
const KEY = 'sk-bounds-SECRET-8c1f0e2d4b6a9c7e5f3a1b2c';
const PROMPT = 'the-private-prompt-5e4d3c2b1a';
const MB = 1_000_000;

/** Everything the failure puts into history, as Temporal encodes it: message, stack, decoded details. */
function historyText(failure: ApplicationFailure): string {
  const proto = defaultFailureConverter.errorToFailure(failure, defaultPayloadConverter);
  const payloads = proto.applicationFailureInfo?.details?.payloads ?? [];
  const decoded = payloads.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
  return JSON.stringify({ proto, decoded });
}

/** A registry whose one model throws `error`, with `KEY` as its credential. */
function throwingRegistry(error: unknown): ProviderRegistry {
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
    resolve: () => ({ provider: 'fake', modelId: 'm', model, secrets: [KEY] }),
  };
}

async function failureOf(registry: ProviderRegistry, model: string) {
  const attempt = input(model, { request: request([{ role: 'user', content: PROMPT }]) });
  return attemptFailure(runAttempt(registry, attempt).done);
}

describe("an SDK error carrying the key and the prompt in every field (APICallError's message, url, request body, headers, body, data, cause)", () => {
  const huge = `${'z'.repeat(MB)} ${KEY} ${PROMPT}`;
  const error = new APICallError({
    message: `Incorrect API key provided: ${KEY}; Authorization: Bearer ${KEY}; ${huge}`,
    url: `https://api.example/v1/chat/completions?key=${KEY}`,
    requestBodyValues: { model: 'm', messages: [{ role: 'user', content: PROMPT }], api_key: KEY },
    statusCode: 401,
    responseHeaders: { 'www-authenticate': `Bearer ${KEY}`, 'x-echo': PROMPT, 'retry-after': '1' },
    responseBody: JSON.stringify({ error: { message: huge, code: KEY } }),
    data: { error: { message: huge, code: `${KEY}${'q'.repeat(MB)}`, type: PROMPT } },
    cause: new Error(`socket said ${KEY} ${PROMPT}`),
  });

  it('fails with its class from the status, and nothing of the key, the prompt or the bulk reaches history', async () => {
    const { failure, details } = await failureOf(throwingRegistry(error), 'fake:m');
    expect(details.class).toBe('AuthFailed');
    expect(details.status).toBe(401);
    const text = historyText(failure);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(KEY.slice('sk-bounds-SECRET-'.length));
    expect(text).not.toContain('api.example');
    expect(text).not.toContain(PROMPT);
    expect(details.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(details.code?.length).toBeLessThanOrEqual(MAX_CODE_CHARS);
    expect(details.code).toMatch(/^\[redacted\]/);
    // Message, stack trace and details together: a few KB at most, whatever the error held.
    expect(text.length).toBeLessThan(8_000);
  });
});

describe('a real provider over HTTP (the loopback provider)', () => {
  let lp: LoopbackProvider;
  let registry: ProviderRegistry;
  beforeEach(async () => {
    lp = await startLoopbackProvider();
    registry = createProviderRegistry(
      {
        local: {
          type: 'openai-compatible',
          baseURL: lp.openaiBaseURL,
          apiKeyEnv: 'K',
          headers: { 'X-Proxy-Token': 'proxy-SECRET-token-77' },
        },
        claude: { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'K' },
      },
      { env: { K: KEY } },
    );
  });
  afterEach(async () => {
    await lp.close();
  });

  it.each([
    ['a 1 MB JSON error message with the key at its end', fail(500, { message: `${'x'.repeat(MB)} ${KEY}` })],
    ['a 1 MB body that is not JSON', fail(502, { body: `${'<html>'.repeat(MB / 6)}${KEY}` })],
    ['a 1 MB error code', fail(400, { code: `${'c'.repeat(MB)}${KEY}` })],
  ])('%s: bounded, scrubbed details', async (_name, step) => {
    lp.script('m', [step]);
    const { failure, details } = await failureOf(registry, 'local:m');
    const text = historyText(failure);
    expect(text).not.toContain(KEY);
    expect(details.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect((details.code ?? '').length).toBeLessThanOrEqual(MAX_CODE_CHARS);
    expect(text.length).toBeLessThan(8_000);
  });

  it.each([401, 403, 500])(
    'a %i that echoes the key, the headers and the request body everywhere leaves none of them in the failure',
    async (status) => {
      lp.script('m', [echoAuth(status, { everywhere: true })]);
      lp.script('m2', [echoAuth(status, { everywhere: true })]);
      for (const model of ['local:m', 'claude:m2']) {
        const { failure, details } = await failureOf(registry, model);
        const received = lp.requests(model.slice(model.indexOf(':') + 1))[0]?.headers;
        expect(received?.['authorization'] ?? received?.['x-api-key']).toContain(KEY);
        const text = historyText(failure);
        expect(text).not.toContain(KEY);
        expect(text).not.toContain('proxy-SECRET-token-77');
        expect(details.message).toContain('[redacted]');
        expect(details.code).toBe('[redacted]');
        expect(details.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
      }
    },
  );

  it('a provider error that repeats the prompt (plain, or JSON-escaped with its newlines) keeps no part of it', async () => {
    const prompt =
      'Summarise the quarterly numbers for ACME Corp:\nrevenue 4.2M, churn 3.1 %, runway 14 months.';
    const escaped = JSON.stringify(prompt).slice(1, -1);
    lp.script('m', [
      fail(400, { message: `Invalid value for messages[0].content: '${prompt}' is not allowed here` }),
      fail(400, { message: `could not parse {"content":"${escaped}"} at offset 12` }),
      fail(400, { message: `rejected: ${prompt.slice(5, 60)} (truncated)` }),
    ]);
    for (let i = 0; i < 3; i++) {
      const attempt = input('local:m', { request: request([{ role: 'user', content: prompt }]) });
      const { failure, details } = await attemptFailure(runAttempt(registry, attempt).done);
      const text = historyText(failure);
      expect(details.class).toBe('BadRequest');
      expect(text).not.toContain('ACME Corp');
      expect(text).not.toContain('quarterly numbers');
      expect(details.message).toContain('[request text]');
      // What the provider said around the echo is kept.
      expect(details.message).toMatch(/^(Invalid value for messages\[0\]\.content|could not parse|rejected)/);
    }
  });
});
