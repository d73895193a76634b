import { describe, expect, it } from 'vitest';
import { fail, ok, rateLimited, slow } from '../../loopback/index.js';
import { runCall, story } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

/** A chain must not stop with a backend untried: the first keeps failing 503 after the plan's only wait is used. */
describe('a retry-same with no wait left advances along the chain', () => {
  const { fx, worker } = useFixture();

  it('A, B, C with waits [100] and every backend failing 503: A twice, then B and C at once', async () => {
    const [a, b, c] = [fx.model('a'), fx.model('b'), fx.model('c')];
    for (const m of [a, b, c]) fx.lp.script(m.id, [{ ...fail(503), repeat: true }]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name, c.name],
      prompt: 'hi',
      retry: { waits: [100] },
    });
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 100 },
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'advance', retryInMs: 0 },
      { backend: 1, outcome: 'failed', class: 'ServerError', action: 'advance', retryInMs: 0 },
      { backend: 2, outcome: 'failed', class: 'ServerError', action: 'retry-same' },
    ]);
    expect([a, b, c].map((m) => fx.lp.requestCount(m.id))).toEqual([2, 1, 1]);
  });

  it('B answers once A has used the only wait', async () => {
    const [a, b, c] = [fx.model('a'), fx.model('b'), fx.model('c')];
    fx.lp.script(a.id, [fail(503), fail(503)]);
    fx.lp.script(b.id, [ok('from b')]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name, c.name],
      prompt: 'hi',
      retry: { waits: [100] },
    });
    expect(run.result?.output.text).toBe('from b');
    expect(run.records.map((r) => r.backend)).toEqual([0, 0, 1]);
    expect(fx.lp.requestCount(c.id)).toBe(0);
  });

  it('a round that started at B (A inside its retry-after) offers A at once when B has no wait left', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    // A asks for 5 s; B's second answer takes 6 s, so A is free again when B runs out of waits.
    fx.lp.script(a.id, [rateLimited(5), ok('from a')]);
    fx.lp.script(b.id, [rateLimited(), slow(6_000, fail(503))]);
    const run = await runCall(fx, worker, { model: [a.name, b.name], prompt: 'hi', retry: { waits: [100] } });
    expect(run.result?.output.text).toBe('from a');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'RateLimited', action: 'advance', retryInMs: 0 },
      // Round 2 starts at B: A is still inside its retry-after.
      { backend: 1, outcome: 'failed', class: 'RateLimited', action: 'advance', retryInMs: 100 },
      // No wait left for B's retry-same: A, before B in the chain but not yet tried in this round, at once.
      { backend: 1, outcome: 'failed', class: 'ServerError', action: 'advance', retryInMs: 0 },
      { backend: 0, outcome: 'succeeded' },
    ]);
  });
});
