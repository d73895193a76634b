import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProviderFetch } from '../../../activities/providers/transport.js';
import type { DispatcherOptions } from '../../../activities/providers/transport.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { ok, slow, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { LOCAL_KEY, attemptFailure, input, runAttempt } from './helpers.js';

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

/** A dispatcher factory that remembers what it was asked for, and builds the real undici Agent. */
function recording() {
  const seen: DispatcherOptions[] = [];
  return {
    seen,
    make: (options: DispatcherOptions) => {
      seen.push(options);
      return new Agent(options);
    },
  };
}

describe("the providers' fetch", () => {
  it("has no headers or body timeout of its own by default (Node's fetch has 300 s of each)", () => {
    const dispatchers = recording();
    createProviderFetch({}, dispatchers.make);
    expect(dispatchers.seen).toEqual([{ headersTimeout: 0, bodyTimeout: 0 }]);
  });

  it('sends requests through its dispatcher and returns the answer', async () => {
    lp.script('m', [ok('hello')]);
    const dispatchers = recording();
    const fetch = createProviderFetch({}, dispatchers.make);
    const response = await fetch(`${lp.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content,
    ).toBe('hello');
  });
});

describe("the registry's models send through the providers' fetch", () => {
  it('so its transport limits, and only they, apply besides the attempt timeout', async () => {
    // A headers limit far below the attempt's 30 s timeout: only the registry's own dispatcher can have it.
    const registry = createProviderRegistry(
      { local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOCAL_KEY' } },
      { env: { LOCAL_KEY }, transport: { headersTimeoutMs: 200 } },
    );
    lp.script('m', [slow(3000, ok('too late for the transport'))]);
    const { details } = await attemptFailure(runAttempt(registry, input('local:m')).done);
    expect(details).toMatchObject({ class: 'ResponseTimeout', code: 'UND_ERR_HEADERS_TIMEOUT' });
  });
});
