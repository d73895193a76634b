import { describe, expect, it } from 'vitest';
import { eventTimeMs, eventTypeName } from '../../client/history-format.js';
import { fail, ok } from '../../loopback/index.js';
import { runCall, story } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

/**
 * The dev server the tests and the demo run on honours short durable waits: its timer queue looks ahead by
 * 10 ms (`worker/dev-server.ts`), not Temporal's default 1 s, which made a 250 ms timer fire about a second late.
 * Measured by the server's own clock in the history, not by how long the test took.
 */
describe('short durable waits on the dev server', () => {
  const { fx, worker } = useFixture();

  it('fires a 250 ms wait between attempts well within the second a default server adds, by the history', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(503), fail(503), ok('third time')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [250, 250] } });
    expect(story(run.records).map((r) => r.retryInMs)).toEqual([250, 250, undefined]);
    const events = run.history.events ?? [];
    const started = events.filter((e) => eventTypeName(e) === 'TimerStarted');
    const fired = events.filter((e) => eventTypeName(e) === 'TimerFired');
    expect(started).toHaveLength(2);
    expect(fired).toHaveLength(2);
    started.forEach((s, i) => {
      const timeout = s.timerStartedEventAttributes?.startToFireTimeout;
      expect(Number(timeout?.seconds ?? 0) * 1000 + (timeout?.nanos ?? 0) / 1e6).toBe(250);
      const f = fired.find(
        (e) => e.timerFiredEventAttributes?.startedEventId?.toString() === s.eventId?.toString(),
      );
      const tookMs = f ? eventTimeMs(f) - eventTimeMs(s) : NaN;
      // Temporal's default look-ahead makes it about 1250 ms; half a second of room is for a loaded machine (a
      // timer's fire event waits for the server's queue), and still tells the two apart.
      expect(tookMs, `timer ${i + 1}: fired ${tookMs} ms after it started`).toBeLessThan(250 + 500);
    });
  });
});
