import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { TENANT_QUERY, tenantLedgerId } from '../../common/tenants.js';
import type { TenantSnapshot } from '../../common/tenants.js';
import { ok, slow } from '../../loopback/index.js';
import { settleCall } from '../harness/chaos.js';
import { useChaosFixture, useTempDir } from '../harness/fixture.js';
import { isAlive } from '../harness/processes.js';
import { until } from '../harness/until.js';

/**
 * A tenant's envelope is kept by its ledger workflow, not by any worker: two worker processes share it through
 * leases, a worker killed with leases in hand leaves their room counted as spent (never handed out again), and a
 * Temporal restart loses none of it. What the provider bills never passes the envelope.
 */
describe("a tenant's envelope holds through worker kills and a Temporal restart", () => {
  const { fx } = useChaosFixture({ workers: 0 });
  const dir = useTempDir('model-retry-chaos-tenants-');
  const tenant = 'chaos-tenant';
  const ENVELOPE = 5_000;
  // Each attempt reserves 1 (the prompt `abcd`) + 999 (its maxOutputTokens) tokens and is billed 900 of them, so
  // settling gives room back and more than five calls may fit, but never more than the envelope is billed.
  const BILLED_PER_REQUEST = 900;
  const CALLS = 10;

  it('kill -9 a worker mid-way, restart the server: the provider billed no more than the envelope, every call ended', async () => {
    const tenants = join(dir, 'tenants.json');
    writeFileSync(tenants, JSON.stringify({ [tenant]: { maxTotalTokens: ENVELOPE, period: 'day' } }));
    const env = { MODEL_RETRY_TENANTS: tenants };
    const workers = await Promise.all([fx.startWorker({ env }), fx.startWorker({ env })]);
    const models = Array.from({ length: CALLS }, (_, i) => `tenant-call-${i}`);
    for (const model of models) {
      const answer = ok(`${model} answered`, { usage: { inputTokens: 1, outputTokens: 899 } });
      fx.lp.script(model, [{ ...slow(1_500, answer), repeat: true }]);
    }
    const handles = await Promise.all(
      models.map((model) =>
        startModelCall(
          fx.client,
          {
            model: `local:${model}`,
            prompt: 'abcd',
            settings: { maxOutputTokens: 999 },
            tenant,
            // Room to wait out other workers' leases (30 s) and the server's restart.
            retry: { maxAttempts: 60, waits: [200], deadlineInMs: 150_000, reserveMs: 1_000 },
          },
          { taskQueue: fx.taskQueue, workflowId: `chaos-tenant-${model}` },
        ),
      ),
    );

    await until('a few requests to reach the provider', () => (fx.lp.requestCount() >= 2 ? true : undefined));
    await workers[0]?.kill9();
    await fx.killAndRestartServer();
    expect(isAlive(workers[1]?.pid ?? 0)).toBe(true);

    const runs = await Promise.all(handles.map((h) => settleCall(fx.lp, h)));
    const billed = fx.lp.requestCount() * BILLED_PER_REQUEST;
    expect(billed).toBeLessThanOrEqual(ENVELOPE);
    for (const run of runs) {
      const status = (await fx.client.workflow.getHandle(run.workflowId).describe()).status.name;
      expect(['COMPLETED', 'FAILED'], run.workflowId).toContain(status);
    }
    const refused = runs.filter((r) => r.records.at(-1)?.failure?.code === 'tenant-envelope');
    // Ten calls of 1,000 tokens each cannot all fit in 5,000: some were refused for the envelope, and stopped so.
    expect(refused.length).toBeGreaterThan(0);
    for (const run of refused) {
      expect((run.failure?.details?.[0] as ModelCallFailedDetails).stopReason, run.workflowId).toBe('budget');
      expect(run.records.at(-1)?.failure?.message).toContain(`maxTotalTokens ${ENVELOPE} per day (UTC)`);
    }
    // Every other call got its answer (a refusal is the only way a call of this tenant may end without one).
    for (const run of runs.filter((r) => !refused.includes(r))) {
      expect(run.result?.output.text, run.workflowId).toMatch(/answered$/);
    }
    const ledger = fx.client.workflow.getHandle(tenantLedgerId(tenant));
    const seen = await ledger.query<TenantSnapshot>(TENANT_QUERY);
    expect(seen.spent.tokens + seen.held.tokens).toBeLessThanOrEqual(ENVELOPE);
    await ledger.terminate('test over');
  });
});
