import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok, slow } from '../../loopback/index.js';
import { settleCall } from '../harness/chaos.js';
import { useClusterFixture } from '../harness/cluster-fixture.js';
import { until } from '../harness/until.js';

/** Long enough that the outage begins while the call waits, whatever the machine's load. */
const WAIT_MS = 6000;

describe('Temporal services and PostgreSQL failing under calls in progress', () => {
  const { fx, cluster } = useClusterFixture({ workers: 2 });

  /**
   * Two calls, one in a durable wait (a 502, then the wait) and one with a request in flight (answered after 3 s),
   * then the outage; the provider answers the request while the server is down; then recovery. Both calls
   * complete, the wait's call with exactly its two attempts, and every provider request matches one record.
   */
  async function survives(name: string, outage: { down(): Promise<void>; up(): Promise<void> }) {
    const inWait = `${name}-wait`;
    const inRequest = `${name}-request`;
    fx.lp.script(inWait, [fail(502), ok(`${inWait} done`)]);
    // Should the answer's completion be lost with the server, the attempt is WorkerLost and sent again.
    fx.lp.script(inRequest, [
      slow(3000, ok(`${inRequest} done`)),
      { ...ok(`${inRequest} again`), repeat: true },
    ]);
    const [waiting, requesting] = await Promise.all(
      [inWait, inRequest].map((id) =>
        startModelCall(
          fx.client,
          { model: `local:${id}`, prompt: 'hi', retry: { waits: [id === inWait ? WAIT_MS : 500] } },
          { taskQueue: fx.taskQueue, workflowId: `cluster-${id}` },
        ),
      ),
    );
    await until(`${inWait}'s durable wait to start`, async () =>
      ((await waiting?.fetchHistory())?.events ?? []).find((e) => e.timerStartedEventAttributes),
    );
    await fx.lp.waitForRequests(1, inRequest);

    await outage.down();
    await until(`the provider to answer ${inRequest} during the outage`, () =>
      fx.lp.requests(inRequest)[0]?.outcome === 'pending' ? undefined : true,
    );
    await outage.up();
    await cluster().waitUntilServing();

    const [w, r] = await Promise.all([waiting, requesting].map((h) => settleCall(fx.lp, h!)));
    expect(w?.result?.output.text).toBe(`${inWait} done`);
    expect(w?.records.map((rec) => rec.failure?.class)).toEqual(['ServerError', undefined]);
    expect(fx.lp.requestCount(inWait)).toBe(2);
    expect(r?.result?.output.text).toMatch(new RegExp(`^${inRequest} (done|again)$`));
    console.info(`${name}: the in-flight call took ${r?.records.length} attempt(s)`);
  }

  it('survives the history service killed -9 during a wait and during a request, then restarted', async () => {
    await survives('history', {
      down: () => cluster().kill9('history'),
      up: () => cluster().start('history'),
    });
  });

  it('survives the frontend killed -9 mid-call, then restarted', async () => {
    await survives('frontend', {
      down: () => cluster().kill9('frontend'),
      up: () => cluster().start('frontend'),
    });
  });

  it('survives PostgreSQL stopped at once (no checkpoint) mid-call, then started again', async () => {
    const pg = cluster().postgres;
    await survives('postgres', { down: () => pg.stopNow(), up: () => pg.start() });
  });
});
