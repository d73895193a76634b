import { describe, expect, it } from 'vitest';
import { readHealth } from '../../activities/health/read.js';
import { startModelCall } from '../../client/model-call-client.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import { ok, rateLimited } from '../../loopback/index.js';
import { readCallHistory } from '../../client/history-reader.js';
import { attemptsQuery } from '../../common/queries.js';
import { settle } from '../harness/settle.js';
import { until } from '../harness/until.js';
import type { WorkerProcess } from '../harness/processes.js';
import { useChaosFixture } from '../harness/fixture.js';

/**
 * Fleet health is durable: an open backend stays open for the fleet across kill -9 of every worker and a dev
 * server restart.
 */
describe('fleet health survives its workers and its server', () => {
  const { fx } = useChaosFixture({ workers: 0 });
  const HEALTH = { MODEL_RETRY_HEALTH: 'on' };

  /** One call over [a, b]; its records (`settleCall`'s request matching assumes models of a call's own). */
  const call = async (n: number) => {
    const handle = await startModelCall(
      fx.client,
      { model: ['local:a', 'local:b'], prompt: 'hi', retry: { waits: [10] } },
      { taskQueue: fx.taskQueue, workflowId: `chaos-health-${n}` },
    );
    const { result } = await settle(handle);
    const records = await handle.query(attemptsQuery);
    expect(readCallHistory(await handle.fetchHistory()).attempts).toEqual(records);
    return { result, records };
  };
  const openA = (): Promise<HealthSnapshot> =>
    until(
      'local:a to be open in its health workflow',
      async () => {
        const s = await readHealth(fx.client, healthWorkflowId(fx.taskQueue, 'local:a')).catch(
          () => undefined,
        );
        return s?.breaker.phase === 'open' ? s : undefined;
      },
      60_000,
    );

  it('kill -9 every worker while a backend is open: new workers still see it open; the same after a server restart', async () => {
    fx.lp.script('a', [rateLimited(600), { ...ok('from a'), repeat: true }]);
    fx.lp.script('b', [{ ...ok('from b'), repeat: true }]);
    let workers: WorkerProcess[] = await Promise.all([
      fx.startWorker({ env: HEALTH }),
      fx.startWorker({ env: HEALTH }),
    ]);

    const first = await call(1);
    expect(first.records.map((r) => r.failure?.class)).toEqual(['RateLimited', undefined]);
    const open = await openA();
    expect(open.breaker.reason).toBe('retry-after');

    await Promise.all(workers.map((w) => w.kill9()));
    workers = await Promise.all([fx.startWorker({ env: HEALTH }), fx.startWorker({ env: HEALTH })]);
    const second = await call(2);
    expect(second.records.map((r) => r.failure?.class)).toEqual(['CoolingDown', undefined]);
    expect(second.result?.output.text).toBe('from b');

    await fx.killAndRestartServer();
    const still = await openA();
    expect(still.breaker.until).toBe(open.breaker.until);
    const third = await call(3);
    expect(third.records.map((r) => r.failure?.class)).toEqual(['CoolingDown', undefined]);
    expect(fx.lp.requestCount('a')).toBe(1);

    await Promise.all(workers.map((w) => w.stop()));
    for (const backend of ['local:a', 'local:b']) {
      const handle = fx.client.workflow.getHandle(healthWorkflowId(fx.taskQueue, backend));
      await handle.terminate('test over').catch(() => undefined);
    }
  });
});
