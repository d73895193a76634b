import { describe, expect, it } from 'vitest';
import { HealthMonitor } from '../../activities/health/monitor.js';
import { HEALTH_PRIORITY_KEY, healthWorkflowId } from '../../common/health.js';
import type { BreakerSettings } from '../../policy/index.js';
import { useOwnServer } from '../harness/fixture.js';

const S: BreakerSettings = { failures: 50, windowMs: 60_000, coolDownMs: 3_000, maxCoolDownMs: 300_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A health workflow runs for as long as its backend is used, continuing as new; it starts at the highest task
 * priority so that its tasks go before a burst of calls' (docs/operations/fleet-health.md). The continue-as-new command
 * has no priority of its own: this file's dev server suggests continuing as new after a few events, so that the
 * run after it shows whether the server carried the priority over.
 */
describe("a health workflow's priority across continue-as-new", () => {
  const fx = useOwnServer({
    extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=12'],
    taskQueue: 'health-priority-continue',
  });

  it('keeps the highest priority in the run it continues as', async () => {
    const { client } = fx.temporal;
    const monitor = new HealthMonitor({ flushMs: 50, refreshMs: 100 });
    const backend = 'local:priority';
    const id = healthWorkflowId(fx.taskQueue, backend);
    try {
      expect(await monitor.admit(client, fx.taskQueue, backend, S)).toEqual({ kind: 'send' });
      const deadline = Date.now() + 30_000;
      let runs = 1;
      while (runs < 2) {
        if (Date.now() > deadline) throw new Error(`${id} did not continue as new`);
        monitor.report(fx.taskQueue, backend, { at: Date.now() });
        await sleep(120);
        runs = 0;
        for await (const _ of client.workflow.list({ query: `WorkflowId = "${id}"` })) runs += 1;
      }
      const history = await client.workflow.getHandle(id).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.continuedExecutionRunId, 'the latest run is one continued as new').toBeTruthy();
      expect(started?.priority?.priorityKey).toBe(HEALTH_PRIORITY_KEY);
    } finally {
      await monitor.close();
      await client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    }
  }, 60_000);
});
