import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  always,
  fail,
  InvalidScriptError,
  ok,
  parseSteps,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { chat, post } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

const statuses = async (model: string, n: number): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push((await chat(lp, model)).status);
  return out;
};

describe('scripts', () => {
  it('serve each model its own steps in order', async () => {
    lp.script('a', [fail(502), ok('a')]).script('b', [fail(429)]);
    expect(await statuses('a', 1)).toEqual([502]);
    expect(await statuses('b', 1)).toEqual([429]);
    expect(await statuses('a', 1)).toEqual([200]);
    lp.assertScriptsConsumed();
  });

  it('append when given twice', async () => {
    lp.script('a', [fail(500)]);
    lp.script('a', [ok()]);
    expect(await statuses('a', 2)).toEqual([500, 200]);
  });

  it('serve a repeating step to every further request', async () => {
    lp.script('a', [fail(502), always(fail(503))]);
    expect(await statuses('a', 4)).toEqual([502, 503, 503, 503]);
    expect(lp.requests('a').map((r) => r.stepIndex)).toEqual([0, 1, 1, 1]);
    lp.assertScriptsConsumed();
  });

  it('fall back to the * script for models that have none left', async () => {
    lp.script('a', [fail(502)]).script('*', [always(ok('default'))]);
    expect(await statuses('a', 2)).toEqual([502, 200]);
    expect(await statuses('other', 1)).toEqual([200]);
    expect(lp.requests().map((r) => r.script)).toEqual(['a', '*', '*']);
  });

  it('refuse steps after a repeating one, and plain JSON with a bad field', () => {
    expect(() => lp.script('a', [always(ok()), fail(500)])).toThrow(/steps after it would never run/);
    lp.script('b', [always(ok())]);
    expect(() => lp.script('b', [ok()])).toThrow(/already ends with a step that repeats forever/);
    expect(() => lp.script('c', [{ kind: 'error' }])).toThrow('script("c")[0].status is required');
    expect(() => lp.script('c', [{ kind: 'error', status: 1000 }])).toThrow(
      'script("c")[0].status must be an integer 100-599',
    );
    expect(() => lp.script('c', [{ kind: 'ok', txt: 'typo' }])).toThrow(InvalidScriptError);
    expect(() => lp.script('c', [{ kind: 'explode' }])).toThrow(/kind must be one of ok, error/);
  });

  it('accept plain JSON steps, as from a file', async () => {
    const steps = parseSteps(
      JSON.parse('[{"kind":"error","status":429,"headers":{"retry-after":"1"}},{"kind":"ok","text":"hi"}]'),
    );
    lp.script('a', steps);
    const first = await chat(lp, 'a');
    expect(first.headers.get('retry-after')).toBe('1');
    expect(await (await chat(lp, 'a')).json()).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
  });
});

describe('a script that runs out', () => {
  it('answers 500 naming the model and the count, and records the surprise', async () => {
    lp.script('a', [ok(), ok()]);
    await statuses('a', 2);
    const res = await chat(lp, 'a');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe('loopback provider: script for model "a" ran out after 2 requests');
    expect(lp.unexpected()).toMatchObject([{ seq: 3, model: 'a', path: '/v1/chat/completions' }]);
    expect(() => lp.assertNoUnexpected()).toThrow(
      /1 unexpected request\(s\):\n {2}#3 POST \/v1\/chat\/completions: .*ran out after 2 requests/,
    );
  });

  it('fails loudly for a model that was never scripted', async () => {
    expect((await chat(lp, 'ghost')).status).toBe(500);
    expect(lp.unexpected()[0]?.message).toBe(
      'loopback provider: script for model "ghost" ran out after 0 requests',
    );
  });

  it('also for requests without a model or on unknown routes', async () => {
    expect((await post(lp, '/v1/chat/completions', 'not json')).status).toBe(400);
    expect((await post(lp, '/v2/nothing', {})).status).toBe(404);
    expect(lp.unexpected().map((u) => u.message)).toEqual([
      'loopback provider: request to /v1/chat/completions has no "model" in its JSON body',
      'loopback provider: no route for POST /v2/nothing',
    ]);
    expect(lp.requests()[0]?.body).toBe('not json');
  });

  it('assertScriptsConsumed names the steps never requested', async () => {
    lp.script('a', [ok(), fail(502), always(ok())]).script('b', [fail(429)]);
    await statuses('a', 1);
    expect(() => lp.assertScriptsConsumed()).toThrow(
      'loopback provider: scripted steps were never requested:\n' +
        '  model "a": 1 unused step(s): error 502\n' +
        '  model "b": 1 unused step(s): error 429',
    );
  });
});

describe('the request record', () => {
  it('keeps headers lower-cased as received, the parsed body and how it ended', async () => {
    lp.script('a', [fail(502), ok()]);
    const before = Date.now();
    await chat(lp, 'a', {}, { 'X-Request-Id': 'wf-1/c1.1', Authorization: 'Bearer sk-test' });
    await chat(lp, 'a', { stream: true }, { 'x-request-id': 'wf-1/c1.2' });
    await lp.idle();
    const [first, second] = lp.requests('a');
    expect(first).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/chat/completions',
      api: 'openai',
      model: 'a',
      stream: false,
      status: 502,
      outcome: 'completed',
      script: 'a',
      stepIndex: 0,
      step: { kind: 'error', status: 502 },
      body: { model: 'a', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(first?.headers['x-request-id']).toBe('wf-1/c1.1');
    expect(first?.headers['authorization']).toBe('Bearer sk-test');
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(first?.endedAt).toBeGreaterThanOrEqual(first?.receivedAt ?? 0);
    expect(second).toMatchObject({ seq: 2, stream: true, status: 200, outcome: 'completed' });
    expect(second?.headers['x-request-id']).toBe('wf-1/c1.2');
    expect(lp.requestCount()).toBe(2);
    expect(lp.requestCount('other')).toBe(0);
  });

  it('reset forgets scripts, records and surprises', async () => {
    lp.script('a', [ok()]);
    await chat(lp, 'ghost');
    lp.reset();
    expect(lp.requestCount()).toBe(0);
    expect(lp.unexpected()).toEqual([]);
    expect(lp.remaining()).toEqual({});
    lp.assertScriptsConsumed();
  });
});
