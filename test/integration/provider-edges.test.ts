import { describe, expect, it } from 'vitest';
import { ok, streamError } from '../../loopback/index.js';
import { runCall, story } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

/**
 * The provider side's edges of a call, on the real workflow, the dev server and the loopback provider: an
 * answer cut by the output limit, a stream a proxy ends cleanly, a provider error inside a stream. `runCall`
 * also checks that the records rebuilt from history equal the workflow's, and that the provider saw exactly
 * the attempts on record.
 */
describe('a durable model call at the edges of what providers send', () => {
  const { fx, worker } = useFixture();

  it('drops a backend whose empty answer stopped at the output limit, and says length on a cut answer', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [ok('', { finishReason: 'length', usage: { inputTokens: 5, outputTokens: 64 } })]);
    fx.lp.script(b.id, [ok('half an answ', { finishReason: 'length' })]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10] },
    });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'OutputLimit', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'succeeded' },
    ]);
    expect(run.records[0]?.usage).toMatchObject({ outputTokens: 64 });
    expect(run.records[1]?.finishReason).toBe('length');
    expect(run.result?.output).toMatchObject({ text: 'half an answ', finishReason: 'length' });
  });

  it('does not ask the same backend again after an empty answer at the output limit', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('', { finishReason: 'length' })]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'OutputLimit', action: 'drop' },
    ]);
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('retries a stream that a proxy ended cleanly before any delta as ConnectionLost', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('never finished', { endAfterChunks: 0 }), ok('whole')]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      stream: { batchMs: 20 },
      retry: { waits: [10] },
    });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ConnectionLost', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(run.result?.output.text).toBe('whole');
  });

  it('stops stream-interrupted, not succeeded, when a proxy ends a stream cleanly after some deltas', async () => {
    const m = fx.model();
    const chunks = ['The ', 'quick ', 'brown ', 'fox.'];
    // Each delta waits long enough for the one before to reach the workflow's stream.
    fx.lp.script(m.id, [ok(undefined, { chunks, chunkDelayMs: 150, endAfterChunks: 2 })]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      stream: { batchMs: 10 },
      retry: { waits: [10] },
    });
    expect(run.result).toBeUndefined();
    expect(run.details?.stopReason).toBe('stream-interrupted');
    expect(run.records[0]?.failure?.message).toMatch(/^ConnectionLost after \d streamed deltas/);
    expect(run.details?.partialText?.startsWith('The ')).toBe(true);
    expect('The quick '.startsWith(run.details?.partialText ?? 'x')).toBe(true);
  });

  it('classifies an Anthropic overloaded_error inside a stream as ServerError and retries the same backend', async () => {
    const id = `${fx.model().id}`;
    const model = `claude:${id}`;
    fx.lp.script(id, [streamError('overloaded_error'), streamError('rate_limit_error'), ok('fine')]);
    const run = await runCall(fx, worker, {
      model,
      prompt: 'hi',
      stream: { batchMs: 20 },
      retry: { waits: [10, 10] },
    });
    expect(story(run.records).map((r) => [r.class, r.action])).toEqual([
      ['ServerError', 'retry-same'],
      ['RateLimited', 'advance'],
      [undefined, undefined],
    ]);
    expect(run.records.map((r) => r.failure?.status)).toEqual([529, 429, undefined]);
  });
});
