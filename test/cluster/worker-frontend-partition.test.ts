import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok, slow } from '../../loopback/index.js';
import { settleCall } from '../harness/chaos.js';
import { useClusterFixture } from '../harness/cluster-fixture.js';
import { story } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import { useToxiproxy } from '../harness/toxiproxy.js';

/** How long the worker is cut off from the frontend: three times the attempt's heartbeat timeout. */
const PARTITION_MS = 30_000;

describe('a worker that reaches the frontend through Toxiproxy', () => {
  const { fx } = useClusterFixture({ workers: 0 });
  const toxiproxy = useToxiproxy();

  it('completes calls correctly with 200-500 ms of latency on every call to Temporal', async () => {
    const proxy = await toxiproxy().proxy('frontend-latency', fx.server.address);
    // 350 ± 150 ms on everything the worker sends to Temporal.
    await proxy.add({ type: 'latency', stream: 'upstream', attributes: { latency: 350, jitter: 150 } });
    const worker = await fx.startWorker({ temporalAddress: proxy.address });
    const ids = ['slow-link-1', 'slow-link-2', 'slow-link-3'];
    for (const id of ids) fx.lp.script(id, [fail(503), ok(`${id} done`)]);
    const handles = await Promise.all(
      ids.map((id) =>
        startModelCall(
          fx.client,
          { model: `local:${id}`, prompt: 'hi', retry: { waits: [500] } },
          { taskQueue: fx.taskQueue, workflowId: `cluster-${id}` },
        ),
      ),
    );
    const runs = await Promise.all(handles.map((h) => settleCall(fx.lp, h)));
    for (const run of runs) {
      expect(run.result?.stopReason, run.workflowId).toBe('succeeded');
      expect(run.records.map((r) => r.failure?.class)).toEqual(['ServerError', undefined]);
    }
    await worker.stop();
  });

  it('partitioned for 30 s while its attempt is in flight: the answer is lost, the retry is WorkerLost, billed twice', async () => {
    const proxy = await toxiproxy().proxy('frontend-partition', fx.server.address);
    await fx.startWorker({ temporalAddress: proxy.address });
    fx.lp.script('partitioned', [slow(2000, ok('first answer')), ok('second answer')]);
    const handle = await startModelCall(
      fx.client,
      { model: 'local:partitioned', prompt: 'hi', retry: { waits: [10] } },
      { taskQueue: fx.taskQueue, workflowId: 'cluster-partitioned' },
    );
    await fx.lp.waitForRequests(1, 'partitioned');
    // A partition, not a refusal: bytes both ways are dropped and the connections stay open.
    const cutAt = Date.now();
    await proxy.add({ type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } });
    await proxy.add({ type: 'timeout', stream: 'downstream', attributes: { timeout: 0 } });
    // The provider answers meanwhile, but the worker cannot report it; nor heartbeat: Temporal times it out.
    await until('the provider to answer the first request', () =>
      fx.lp.requests('partitioned')[0]?.outcome === 'completed' ? true : undefined,
    );
    await until(
      'Temporal to time the attempt out on its heartbeat',
      async () =>
        ((await handle.fetchHistory()).events ?? []).find((e) => e.activityTaskTimedOutEventAttributes),
      PARTITION_MS + 30_000,
    );
    // The partition's length is the scenario itself, not a wait for readiness.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cutAt + PARTITION_MS - Date.now())));
    await proxy.heal();

    const run = await settleCall(fx.lp, handle);
    expect(run.result?.output.text).toBe('second answer');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'WorkerLost', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    // Both requests were answered in full: the provider did the work (and bills) twice for one result.
    const answered = fx.lp.requests('partitioned').filter((r) => r.outcome === 'completed');
    expect(answered).toHaveLength(2);
    const billedTwice = run.records.filter(
      (r) =>
        r.failure?.class === 'WorkerLost' && run.requestIds.includes(`${run.workflowId}/${r.modelCallId}`),
    );
    expect(billedTwice).toHaveLength(1);
    console.info(
      `partition: ${answered.length} answered requests for one result (${billedTwice.length} WorkerLost)`,
    );
  });
});
