import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok, slow } from '../../loopback/index.js';
import { settleCall } from '../harness/chaos.js';
import { isAlive } from '../harness/processes.js';
import { until } from '../harness/until.js';
import { useChaosFixture } from '../harness/fixture.js';

describe('the dev server killed -9 mid-call and restarted on the same SQLite file', () => {
  const { fx, workers } = useChaosFixture({ workers: 2 });

  it('loses nothing: the workers reconnect on their own and every known call completes', async () => {
    // Three calls in a durable wait and three with a request in flight when the server dies.
    const inWait = ['wait-1', 'wait-2', 'wait-3'];
    const inRequest = ['request-1', 'request-2', 'request-3'];
    for (const id of inWait) fx.lp.script(id, [fail(502), ok(`${id} done`)]);
    // Should the answer's completion be lost with the server, the attempt is WorkerLost and sent again.
    for (const id of inRequest)
      fx.lp.script(id, [slow(3000, ok(`${id} done`)), { ...ok(`${id} again`), repeat: true }]);
    const handles = await Promise.all(
      [...inWait, ...inRequest].map((id) =>
        startModelCall(
          fx.client,
          { model: `local:${id}`, prompt: 'hi', retry: { waits: [inWait.includes(id) ? 4000 : 500] } },
          { taskQueue: fx.taskQueue, workflowId: `chaos-server-restart-${id}` },
        ),
      ),
    );
    await Promise.all([...inWait, ...inRequest].map((id) => fx.lp.waitForRequests(1, id)));

    await fx.killAndRestartServer();
    expect(workers.every((w) => isAlive(w.pid))).toBe(true);

    for (const handle of handles) {
      // Known by id on the restarted server, not only listed.
      const id = handle.workflowId;
      const described = await until(`${id} to be described`, () =>
        fx.client.workflow.getHandle(id).describe(),
      );
      expect(['RUNNING', 'COMPLETED']).toContain(described.status.name);
    }
    const runs = await Promise.all(handles.map((h) => settleCall(fx.lp, h)));
    for (const run of runs) {
      const id = run.workflowId.replace('chaos-server-restart-', '');
      expect(run.result?.output.text, run.workflowId).toMatch(new RegExp(`^${id} (done|again)$`));
      expect((await fx.client.workflow.getHandle(run.workflowId).describe()).status.name).toBe('COMPLETED');
    }
    for (const run of runs.filter((r) => r.workflowId.includes('wait-'))) {
      expect(run.records.map((r) => r.failure?.class)).toEqual(['ServerError', undefined]);
    }
    // The workers that started before the kill are the ones that finished the calls.
    expect(workers.every((w) => isAlive(w.pid))).toBe(true);
  });
});
