import { defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, boundedMessage, scrub } from '../../../activities/scrub.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { echoAuth, fail, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { LOCAL_KEY, attemptFailure, input, loopbackRegistry, request, runAttempt } from './helpers.js';

describe('scrub', () => {
  it.each([
    ['a known secret anywhere', 'key was my-secret-value!', ['my-secret-value'], 'key was [redacted]!'],
    ['a bearer token', 'invalid api key: Bearer abc.def-123', [], 'invalid api key: Bearer [redacted]'],
    [
      'an Authorization header',
      'sent Authorization: Basic dXNlcjpwYXNz',
      [],
      'sent Authorization: [redacted]',
    ],
    ['an x-api-key header as JSON', '{"x-api-key":"whatever-1234"}', [], '{"x-api-key":"[redacted]"}'],
    ['an OpenAI-looking key', 'bad key sk-proj-AbCdEf0123456789', [], 'bad key [redacted]'],
    ['an Anthropic-looking key', 'bad key sk-ant-api03-AbCdEf0123456789', [], 'bad key [redacted]'],
    ['a URL-encoded secret', 'q=a%2Bb%2Fsecret', ['a+b/secret'], 'q=[redacted]'],
  ] as const)('removes %s', (_name, text, secrets, expected) => {
    expect(scrub(text, secrets)).toBe(expected);
  });

  it('leaves ordinary messages alone (short "secrets" are not searched for)', () => {
    expect(scrub('Bad gateway: upstream sk timed out', ['sk'])).toBe('Bad gateway: upstream sk timed out');
  });

  it('bounds a message to 300 characters after scrubbing, so a cut never leaves half a key', () => {
    const long = `${'x'.repeat(290)} ${LOCAL_KEY} ${'y'.repeat(400)}`;
    const message = boundedMessage(long, [LOCAL_KEY]);
    expect(message.length).toBe(MAX_MESSAGE_CHARS);
    expect(message).not.toContain(LOCAL_KEY.slice(0, 8));
    expect(message.endsWith('…')).toBe(true);
  });

  it('collapses whitespace', () => {
    expect(boundedMessage('  a\n\n b\tc  ')).toBe('a b c');
  });
});

/** Everything the failure puts into history: Temporal's own encoding of it (message, stack, details), as text. */
function historyText(error: Error): string {
  const failure = defaultFailureConverter.errorToFailure(error, defaultPayloadConverter);
  const payloads = failure.applicationFailureInfo?.details?.payloads ?? [];
  const decoded = payloads.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
  return JSON.stringify({ failure, decoded });
}

describe('modelRequest keeps the key out of its failures', () => {
  let lp: LoopbackProvider;
  beforeEach(async () => {
    lp = await startLoopbackProvider();
  });
  afterEach(async () => {
    await lp.close();
  });

  it('sends the key, and leaves no trace of it when the provider echoes the Authorization header', async () => {
    lp.script('m', [echoAuth()]);
    const { failure, details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), input('local:m')).done,
    );
    expect(lp.requests('m')[0]?.headers['authorization']).toBe(`Bearer ${LOCAL_KEY}`);
    expect(details).toMatchObject({
      class: 'AuthFailed',
      status: 401,
      message: 'invalid api key: Bearer [redacted]',
    });
    const everything = historyText(failure);
    expect(everything).toContain('invalid api key: Bearer [redacted]');
    expect(everything).not.toContain(LOCAL_KEY);
    expect(everything).not.toContain('loopback-test-key');
  });

  it('scrubs a key that is not key-shaped, and credential headers of the config', async () => {
    const key = 'plain-looking-credential-42';
    const registry = createProviderRegistry(
      {
        local: {
          type: 'openai-compatible',
          baseURL: lp.openaiBaseURL,
          apiKeyEnv: 'K',
          headers: { 'X-Org-Token': 'org-token-777' },
        },
      },
      { env: { K: key } },
    );
    lp.script('m', [fail(400, { message: `rejected ${key} with org-token-777` })]);
    const { failure, details } = await attemptFailure(runAttempt(registry, input('local:m')).done);
    expect(details.message).toBe('rejected [redacted] with [redacted]');
    expect(historyText(failure)).not.toMatch(/plain-looking|org-token/);
  });

  it('never puts the request body (the prompt) into the failure', async () => {
    lp.script('m', [fail(500)]);
    const secretPrompt = 'the-prompt-is-private-9f8e7d';
    const { failure } = await attemptFailure(
      runAttempt(
        loopbackRegistry(lp),
        input('local:m', { request: request([{ role: 'user', content: secretPrompt }]) }),
      ).done,
    );
    expect(historyText(failure)).not.toContain(secretPrompt);
  });
});
