import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok, slow } from '../../loopback/index.js';
import { settleCall } from '../harness/chaos.js';
import { until } from '../harness/until.js';
import { useChaosFixture } from '../harness/fixture.js';

const CALLS = 50;
/** Every call needs at least this many requests: a 502, a slow 503, then the answer. */
const MIN_REQUESTS_PER_CALL = 3;

describe('fifty concurrent calls while workers are killed -9 twice', () => {
  const { fx, workers: first } = useChaosFixture({ workers: 2 });

  it('completes every call, with one attempt record per request the provider saw', async () => {
    const ids = Array.from({ length: CALLS }, (_, i) => `call-${i + 1}`);
    for (const id of ids) {
      // After the scripted failures the answer repeats: a request lost with a worker may have used any step.
      fx.lp.script(id, [fail(502), slow(2000, fail(503)), { ...ok(`${id} done`), repeat: true }]);
    }
    const handles = await Promise.all(
      ids.map((id) =>
        startModelCall(
          fx.client,
          // Room for the two scripted failures and a WorkerLost per kill.
          { model: `local:${id}`, prompt: 'hi', retry: { waits: [1000, 3000, 1000, 1000, 1000, 1000] } },
          { taskQueue: fx.taskQueue, workflowId: `chaos-fifty-${id}` },
        ),
      ),
    );

    // A call ends only after its third request at the earliest: at 50 requests hardly any call has ended, at 100
    // at most 33 have. So each kill lands while calls are in progress, however fast or slow the machine is.
    const minimum = CALLS * MIN_REQUESTS_PER_CALL;
    await until('the first attempts', () => (fx.lp.requestCount() >= CALLS ? true : undefined), 120_000);
    await first[0]?.kill9();
    const firstKillAt = fx.lp.requestCount();
    const third = fx.startWorker();
    await until(
      'more requests after the first kill',
      () => (fx.lp.requestCount() >= minimum - CALLS ? true : undefined),
      180_000,
    );
    await first[1]?.kill9();
    const secondKillAt = fx.lp.requestCount();
    const fourth = fx.startWorker();
    await Promise.all([third, fourth]);

    const runs = await Promise.all(handles.map((h) => settleCall(fx.lp, h)));
    for (const run of runs) expect(run.result?.stopReason, run.workflowId).toBe('succeeded');
    const records = runs.flatMap((r) => r.records);
    const sent = runs.reduce((n, r) => n + r.requestIds.length, 0);
    expect(fx.lp.requestCount()).toBe(sent);
    // Only a WorkerLost attempt may lack its request: its worker died between receiving it and sending.
    const unsent = records.length - sent;
    const lost = records.filter((r) => r.failure?.class === 'WorkerLost').length;
    expect(unsent).toBeLessThanOrEqual(lost);
    console.info(
      `${records.length} attempts for ${CALLS} calls, ${sent} requests (kills after ${firstKillAt} and ` +
        `${secondKillAt}); ${lost} WorkerLost, ${unsent} of them before their request left`,
    );
  });
});
