import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  contextTooLong,
  cutMidBody,
  dropBeforeResponse,
  echoAuth,
  fail,
  hang,
  malformed,
  ok,
  quotaExhausted,
  rateLimited,
  slow,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { causes, chat, messages, readUntilBroken } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

describe('scripted HTTP errors', () => {
  it('502 with an OpenAI error body and the server_error type', async () => {
    lp.script('m', [fail(502)]);
    const res = await chat(lp, 'm');
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: {
        message: 'loopback provider: scripted 502 error',
        type: 'server_error',
        param: null,
        code: null,
      },
    });
  });

  it('429 with retry-after, retry-after-ms and x-should-retry headers', async () => {
    lp.script('m', [rateLimited(2, { headers: { 'retry-after-ms': '1500', 'x-should-retry': 'false' } })]);
    const res = await chat(lp, 'm');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('retry-after-ms')).toBe('1500');
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(await res.json()).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
  });

  it('429 insufficient_quota and 400 context_length_exceeded carry their OpenAI codes', async () => {
    lp.script('m', [quotaExhausted(), contextTooLong()]);
    expect(await (await chat(lp, 'm')).json()).toMatchObject({
      error: { type: 'insufficient_quota', code: 'insufficient_quota' },
    });
    const second = await chat(lp, 'm');
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'context_length_exceeded' },
    });
  });

  it('a custom body replaces the provider format', async () => {
    lp.script('m', [fail(503, { body: 'upstream connect error' }), fail(500, { body: { detail: 'x' } })]);
    expect(await (await chat(lp, 'm')).text()).toBe('upstream connect error');
    expect(await (await chat(lp, 'm')).json()).toEqual({ detail: 'x' });
  });

  it('echoes the received Authorization header into a 401 message', async () => {
    lp.script('m', [echoAuth()]);
    const res = await chat(lp, 'm', {}, { authorization: 'Bearer sk-secret-123' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: { message: 'invalid api key: Bearer sk-secret-123', code: 'invalid_api_key' },
    });
  });

  it("echoes Anthropic's x-api-key when there is no Authorization header", async () => {
    lp.script('claude', [echoAuth(403)]);
    const res = await messages(lp, 'claude', {}, { 'x-api-key': 'sk-ant-secret' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: 'invalid api key: sk-ant-secret' },
    });
  });

  it('echoes the credentials everywhere when asked: message, code, type, response headers, request body', async () => {
    lp.script('m', [echoAuth(500, { everywhere: true })]);
    const res = await chat(lp, 'm', {}, { authorization: 'Bearer sk-secret-123' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-echoed-authorization')).toBe('Bearer sk-secret-123');
    expect(res.headers.get('x-echoed-key')).toBe('sk-secret-123');
    const { error } = (await res.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: 'sk-secret-123', type: 'sk-secret-123' });
    expect(error.message).toMatch(
      /^Incorrect API key provided: sk-secret-123\. Received Bearer sk-secret-123/,
    );
    expect(error.message).toContain('"content":"hi"');
  });

  it("echoes Anthropic's x-api-key everywhere too", async () => {
    lp.script('claude', [echoAuth(403, { everywhere: true })]);
    const res = await messages(lp, 'claude', {}, { 'x-api-key': 'sk-ant-secret' });
    expect(res.headers.get('x-echoed-key')).toBe('sk-ant-secret');
    expect(await res.json()).toMatchObject({ error: { type: 'sk-ant-secret' } });
  });
});

describe('malformed bodies', () => {
  it('invalid JSON with status 200', async () => {
    lp.script('m', [malformed()]);
    const res = await chat(lp, 'm');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
  });

  it('valid JSON of the wrong shape: no choices', async () => {
    lp.script('m', [malformed('wrong-shape')]);
    const body = (await (await chat(lp, 'm')).json()) as Record<string, unknown>;
    expect(body.id).toBe('chatcmpl-loopback-1');
    expect(body).not.toHaveProperty('choices');
  });

  it('an empty 200 and a raw body of our choosing', async () => {
    lp.script('m', [
      malformed('empty'),
      malformed('invalid-json', { body: '<html>502</html>', contentType: 'text/html' }),
    ]);
    expect(await (await chat(lp, 'm')).text()).toBe('');
    const res = await chat(lp, 'm');
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html>502</html>');
  });

  it('a streamed request gets a broken event', async () => {
    lp.script('m', [malformed()]);
    const text = await (await chat(lp, 'm', { stream: true })).text();
    expect(text.startsWith('data: {')).toBe(true);
    expect(() => JSON.parse(text.split('\n')[0]?.slice(6) ?? '') as unknown).toThrow(SyntaxError);
  });
});

describe('broken connections', () => {
  it('drops the connection before any response', async () => {
    lp.script('m', [dropBeforeResponse()]);
    const error = await chat(lp, 'm').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(causes(error).join(' | ')).toMatch(/UND_ERR_SOCKET|ECONNRESET|other side closed/);
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('dropped');
    expect(lp.requests('m')[0]?.status).toBeUndefined();
    expect(lp.requestCount('m')).toBe(1);
  });

  it('cuts the body mid-way after the headers', async () => {
    lp.script('m', [cutMidBody(0.5, { text: 'a long enough answer to be cut in two' })]);
    const res = await chat(lp, 'm');
    expect(res.status).toBe(200);
    const { text, error } = await readUntilBroken(res);
    expect(error).toBeInstanceOf(Error);
    expect(text.length).toBeGreaterThan(0);
    expect(text.startsWith('{"id":"chatcmpl-loopback-1"')).toBe(true);
    await lp.idle();
    expect(lp.requests('m')[0]).toMatchObject({ outcome: 'cut', status: 200 });
  });

  it('waits before the headers on a slow step', async () => {
    lp.script('m', [slow(150, ok('late'))]);
    const started = Date.now();
    const res = await chat(lp, 'm');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await res.json()).toMatchObject({ choices: [{ message: { content: 'late' } }] });
  });
});

describe('a client that gives up', () => {
  it.each([
    ['a slow step', slow(60_000, ok('never'))],
    ['a hanging step', hang()],
  ])('ends %s at once and records client-aborted', async (_name, step) => {
    lp.script('m', [step]);
    const controller = new AbortController();
    const pending = fetch(`${lp.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm' }),
      signal: controller.signal,
    });
    await lp.waitForRequests(1, 'm'); // abort it in flight, not before it reached the provider
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    // Settles only once the exchange ended: the slow step would keep it a minute, the hanging one for ever.
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('client-aborted');
  });
});
