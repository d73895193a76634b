import { describe, expect, it } from 'vitest';
import { fail, malformed, ok, rateLimited } from '../../loopback/index.js';
import { eventTypeName } from '../../client/history-format.js';
import { runCall, story } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

describe('a durable model call retries by its plan', () => {
  const { fx, worker } = useFixture();

  it('fails twice, then answers on the third attempt after waits of 10 and 30 ms', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), fail(502), ok('hello')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 30] } });
    expect(run.result?.output.text).toBe('hello');
    expect(run.result?.stopReason).toBe('succeeded');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 30 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(run.records.map((r) => r.modelCallId)).toEqual(['c1.1', 'c1.2', 'c1.3']);
    expect(fx.lp.requestCount(m.id)).toBe(3);
    const timers = (run.history.events ?? []).filter((e) => e.timerStartedEventAttributes);
    expect(timers.map((e) => Number(e.timerStartedEventAttributes?.startToFireTimeout?.nanos) / 1e6)).toEqual(
      [10, 30],
    );
  });

  it('makes exactly one attempt without a plan', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi' });
    expect(run.failure?.type).toBe('ModelCallFailed');
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(run.failure?.message).toContain(`[backend 0 ${m.name}] ServerError 502`);
    expect(run.records).toHaveLength(1);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('stops at once on a 400, as non-retryable', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'BadRequest', action: 'abort' },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('without a deadline, takes the waits list as the bound', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), fail(502), fail(502)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 20] } });
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(run.details?.attemptCount).toBe(3);
    expect(run.records.map((r) => r.retryInMs)).toEqual([10, 20, undefined]);
    expect(fx.lp.requestCount(m.id)).toBe(3);
  });

  it('with a deadline, repeats the last wait and stops on `deadline` with the reserve untouched', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [{ ...fail(502), repeat: true }]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      retry: { waits: [50, 150], deadlineInMs: 8000, reserveMs: 2000, minAttemptMs: 200 },
    });
    expect(run.details?.stopReason).toBe('deadline');
    expect(run.records.length).toBeGreaterThan(3);
    expect(new Set(run.records.slice(1, -1).map((r) => r.retryInMs))).toEqual(new Set([150]));
    const started = Date.parse((await run.handle.describe()).startTime.toISOString());
    const spendUntil = started + 8000 - 2000;
    for (const r of run.records) expect(Date.parse(r.endedAt ?? '')).toBeLessThanOrEqual(spendUntil);
    // An attempt that starts with less than minAttemptMs left (a busy machine delays its start) sends nothing and
    // is `CoolingDown`: only the last one can be.
    const unsent = run.records.filter((r) => r.failure?.class === 'CoolingDown');
    expect(unsent.every((r) => r === run.records.at(-1))).toBe(true);
    expect(fx.lp.requestCount(m.id)).toBe(run.records.length - unsent.length);
  });

  it.each([
    ['retry-after: 1', rateLimited(1), 1000],
    ['retry-after-ms: 1500', fail(429, { headers: { 'retry-after-ms': '1500' } }), 1500],
  ])('waits for a 429 with %s', async (_name, step, expected) => {
    const m = fx.model();
    fx.lp.script(m.id, [step, ok('after the limit')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.result?.output.text).toBe('after the limit');
    expect(run.records[0]?.failure).toMatchObject({ class: 'RateLimited', retryAfterMs: expected });
    expect(run.records[0]?.retryInMs).toBe(expected);
    const gap = fx.lp.requests(m.id)[1]!.receivedAt - fx.lp.requests(m.id)[0]!.receivedAt;
    expect(gap).toBeGreaterThanOrEqual(expected);
  });

  it('waits for a 429 whose retry-after is an HTTP date', async () => {
    const m = fx.model();
    const at = new Date(Date.now() + 3000).toUTCString();
    fx.lp.script(m.id, [fail(429, { headers: { 'retry-after': at } }), ok('later')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.result?.output.text).toBe('later');
    const wait = run.records[0]?.retryInMs ?? 0;
    expect(wait).toBeGreaterThan(1000);
    expect(wait).toBeLessThanOrEqual(3000);
    expect(fx.lp.requests(m.id)[1]!.receivedAt).toBeGreaterThanOrEqual(Date.parse(at));
  });

  it('advances from backend A to B at once on a 429, without a timer', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [fail(429)]);
    fx.lp.script(b.id, [ok('from b')]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [5000] },
    });
    expect(run.result?.model).toBe(b.name);
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'RateLimited', action: 'advance', retryInMs: 0 },
      { backend: 1, outcome: 'succeeded' },
    ]);
    expect((run.history.events ?? []).map(eventTypeName)).not.toContain('TimerStarted');
  });

  it('hands over from A to B after 503 three times on A', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [fail(503), fail(503), fail(503)]);
    fx.lp.script(b.id, [ok('from b')]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10, 10] },
    });
    expect(run.records.map((r) => r.backend)).toEqual([0, 0, 0, 1]);
    expect(run.records[2]?.failure?.action).toBe('advance');
    expect(fx.lp.requestCount(a.id)).toBe(3);
    expect(fx.lp.requestCount(b.id)).toBe(1);
  });

  it('stops after one attempt on a 401 on the only backend', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(401)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'AuthFailed', action: 'drop' },
    ]);
  });

  it('goes round the chain with waits between rounds when every backend fails', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [fail(429), fail(429), fail(429)]);
    fx.lp.script(b.id, [fail(429), fail(429), fail(429)]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 20] },
    });
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(run.records.map((r) => [r.backend, r.retryInMs])).toEqual([
      [0, 0],
      [1, 10],
      [0, 0],
      [1, 20],
      [0, 0],
      [1, undefined],
    ]);
  });

  it('advances past a malformed body (ParseFailed)', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [malformed()]);
    fx.lp.script(b.id, [ok('clean')]);
    const run = await runCall(fx, worker, { model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(story(run.records)[0]).toEqual({
      backend: 0,
      outcome: 'failed',
      class: 'ParseFailed',
      action: 'advance',
      retryInMs: 0,
    });
    expect(run.result?.output.text).toBe('clean');
  });

  it('drops a backend that says `x-should-retry: false` and never tries it again', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [fail(503, { headers: { 'x-should-retry': 'false' } })]);
    fx.lp.script(b.id, [fail(502), ok('from b')]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10] },
    });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 10 },
      { backend: 1, outcome: 'succeeded' },
    ]);
    expect(fx.lp.requestCount(a.id)).toBe(1);
  });
});
