import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import { HealthMonitor } from '../../activities/health/monitor.js';
import { readHealth } from '../../activities/health/read.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import type { ModelCallInput } from '../../common/call.js';
import { fail, ok, rateLimited, slow } from '../../loopback/index.js';
import { TEST_SECRETS, finishCall, story } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import { startModelCall } from '../../client/model-call-client.js';
import { cliEnv, useFixture } from '../harness/fixture.js';
import { runCli } from '../harness/cli.js';
import type { HealthRow } from '../../cli/health.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * Fleet health is shared: what one call learns about a backend, every call knows (two workers, each with its own
 * monitor).
 */
describe('fleet health', () => {
  const { fx } = useFixture({ worker: false });
  const taskQueue = `health-${Date.now()}`;
  let providers: ProviderRegistry;
  const workers: TestWorker[] = [];
  let n = 0;
  const model = (name: string) => {
    n += 1;
    return { id: `${name}-${n}`, name: `hl:${name}-${n}` };
  };

  beforeAll(async () => {
    providers = createProviderRegistry(
      {
        hl: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          health: { trip: { failures: 3, windowMs: 60_000 }, coolDownMs: 3_000 },
        },
        // A longer cool-down, so that a slow probe answers well within it (a probe that never reports within a
        // cool-down is released).
        hs: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          health: { trip: { failures: 3, windowMs: 60_000 }, coolDownMs: 20_000 },
        },
      },
      { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey } },
    );
    // One worker per task queue in a process (the SDK refuses two); a fresh monitor below stands for another
    // worker that learned nothing by itself, and test/chaos/fleet-health-*.test.ts runs worker processes.
    const deps = { providers, health: { flushMs: 100, refreshMs: 200 } };
    workers.push(await fx.temporal.startWorker({ deps, taskQueue }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    // The health workflows run until terminated: end this file's.
    const ids = fx.temporal.client.workflow.list({
      query: `WorkflowId STARTS_WITH "model-retry-health:${taskQueue}:"`,
    });
    for await (const w of ids) {
      if (w.status.name === 'RUNNING')
        await fx.temporal.client.workflow.getHandle(w.workflowId).terminate('test over');
    }
  });

  const run = async (input: ModelCallInput): Promise<CallRun> =>
    finishCall(fx, await startModelCall(fx.temporal.client, input, { taskQueue }));

  /** Waits (generously) until the backend's health workflow says `phase`. */
  async function until(
    client: Client,
    backend: string,
    ok: (s: HealthSnapshot) => boolean,
  ): Promise<HealthSnapshot> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await readHealth(client, healthWorkflowId(taskQueue, backend));
      if (s !== undefined && ok(s)) return s;
      if (Date.now() > deadline) throw new Error(`health of ${backend}: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it("a backend tripped by one call's failures spares the other calls: they advance at once, it sees no more requests", async () => {
    // hs: a 20 s cool-down, so the calls below all run while it is open, however loaded the machine (with hl's 3 s,
    // a slow run reached half-open and sent a probe, rightly).
    const a = { ...model('a'), name: '' };
    a.name = `hs:${a.id}`;
    const b = model('b');
    fx.lp.script(a.id, [{ ...fail(503), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    const first = await run({
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10, 10, 10, 10], retriesPerBackend: 5 },
    });
    expect(first.result?.output.text).toBe('from b');
    expect(
      story(first.records)
        .slice(0, 3)
        .map((r) => r.class),
    ).toEqual(['ServerError', 'ServerError', 'ServerError']);
    const open = await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'open');
    expect(open.breaker.trips).toBe(1);
    const sent = fx.lp.requestCount(a.id);
    expect(sent).toBe(3);

    const others = await Promise.all(
      Array.from({ length: 6 }, () => run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } })),
    );
    for (const o of others) {
      expect(o.result?.output.text).toBe('from b');
      expect(story(o.records)).toEqual([
        { backend: 0, outcome: 'failed', class: 'CoolingDown', action: 'advance', retryInMs: 0 },
        { backend: 1, outcome: 'succeeded' },
      ]);
      expect(o.records[0]?.failure?.retryAfterMs).toBeGreaterThan(0);
    }
    expect(fx.lp.requestCount(a.id)).toBe(sent);
  });

  it('a 429 with retry-after opens the backend for the whole fleet until then', async () => {
    const [a, b] = [model('a'), model('b')];
    fx.lp.script(a.id, [rateLimited(30), { ...ok('from a'), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    const first = await run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(story(first.records).map((r) => r.class)).toEqual(['RateLimited', undefined]);
    const open = await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'open');
    expect(open.breaker.reason).toBe('retry-after');
    expect((open.breaker.until ?? 0) - Date.now()).toBeGreaterThan(10_000);
    const others = await Promise.all(
      Array.from({ length: 6 }, () => run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } })),
    );
    for (const o of others) expect(o.records[0]?.failure?.class).toBe('CoolingDown');
    expect(fx.lp.requestCount(a.id)).toBe(1);
    // A worker that saw none of it (its own monitor, nothing cached) keeps its attempts from being sent too.
    const fresh = new HealthMonitor({ refreshMs: 200 });
    const settings = { failures: 3, windowMs: 60_000, coolDownMs: 3_000, maxCoolDownMs: 300_000 };
    const seen = await fresh.admit(fx.temporal.client, taskQueue, a.name, settings);
    await fresh.close();
    expect(seen.kind).toBe('cooling');
  });

  it('a rate-limit header at zero remaining on an answer opens the backend until its reset', async () => {
    const [a, b] = [model('a'), model('b')];
    const headers = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '40s' };
    fx.lp.script(a.id, [ok('last one', { headers }), { ...ok('from a'), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    const first = await run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(first.result?.output.text).toBe('last one');
    await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'open');
    const next = await run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(next.records.map((r) => r.failure?.class)).toEqual(['CoolingDown', undefined]);
    expect(fx.lp.requestCount(a.id)).toBe(1);
  });

  it('half-open sends one probe fleet-wide, and its answer closes the backend', async () => {
    const a = { ...model('a'), name: '' };
    a.name = `hs:${a.id}`;
    const b = model('b');
    // The probe's answer takes 8 s, so every call below asks while it is in flight (however loaded the machine),
    // and none is sent after the backend closed (which would be right, but not what this test counts).
    fx.lp.script(a.id, [
      fail(503),
      fail(503),
      fail(503),
      slow(8_000, ok('a is back')),
      { ...ok('a is back'), repeat: true },
    ]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    await run({
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10, 10, 10, 10], retriesPerBackend: 5 },
    });
    const open = await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'open');
    expect(fx.lp.requestCount(a.id)).toBe(3);
    // Past the cool-down: many calls at once, one probe among them.
    await new Promise((r) => setTimeout(r, Math.max(0, (open.breaker.until ?? 0) - Date.now()) + 200));
    const calls = await Promise.all(
      Array.from({ length: 8 }, () => run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } })),
    );
    const probed = calls.filter((c) => c.result?.output.text === 'a is back');
    expect(probed).toHaveLength(1);
    expect(fx.lp.requestCount(a.id)).toBe(4);
    for (const c of calls.filter((x) => x !== probed[0]))
      expect(c.records[0]?.failure?.class).toBe('CoolingDown');
    const closed = await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'closed');
    expect(closed.breaker.probes).toBe(1);
    const after = await run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(after.result?.output.text).toBe('a is back');
  });

  it('a probe whose answer reaches the health workflow after a cool-down still closes the backend', async () => {
    // hl's cool-down is 3 s: the probe answers after 5 s, so the health workflow has let it go when its answer
    // arrives (as when a loaded server delays the worker's signal), and no other call claims a probe meanwhile.
    const [a, b] = [model('a'), model('b')];
    fx.lp.script(a.id, [
      fail(503),
      fail(503),
      fail(503),
      slow(5_000, ok('a is back')),
      { ...ok('a is back'), repeat: true },
    ]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    const plan = { waits: [10, 10, 10, 10, 10], retriesPerBackend: 5 };
    await run({ model: [a.name, b.name], prompt: 'hi', retry: plan });
    // Tripped (open, or already half-open: on a loaded machine the 3 s may be over before the first read).
    const open = await until(fx.temporal.client, a.name, (s) => s.breaker.trips === 1);
    await new Promise((r) => setTimeout(r, Math.max(0, (open.breaker.until ?? 0) - Date.now()) + 200));
    const probe = await run({ model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(probe.result?.output.text).toBe('a is back');
    const closed = await until(fx.temporal.client, a.name, (s) => s.breaker.phase === 'closed');
    expect(closed.breaker.probes).toBe(1);
    expect(fx.lp.requestCount(a.id)).toBe(4);
  });

  it('every backend left cooling: the call waits once for it (no planned wait used), then probes it', async () => {
    const [d, b] = [model('d'), model('b')];
    fx.lp.script(d.id, [rateLimited(6), { ...ok('d is back'), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    await run({ model: [d.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    await until(fx.temporal.client, d.name, (s) => s.breaker.phase === 'open');
    const alone = await run({ model: [d.name], prompt: 'hi', retry: { waits: [10] } });
    expect(alone.result?.output.text).toBe('d is back');
    expect(story(alone.records)).toMatchObject([
      { backend: 0, outcome: 'failed', class: 'CoolingDown', action: 'advance' },
      { backend: 0, outcome: 'succeeded' },
    ]);
    // The wait is fleet health's (the rest of the 6 s), not the plan's 10 ms.
    expect(alone.records[0]?.retryInMs).toBeGreaterThan(1_000);
    expect(fx.lp.requestCount(d.id)).toBe(2);
  });

  it('a worker that could not make the request (Misconfigured: no price under a cost budget) reports nothing of the backend', async () => {
    const [x, b] = [model('x'), model('b')];
    fx.lp.script(x.id, [{ ...ok('from x'), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    const refused = await run({ model: x.name, prompt: 'hi', budget: { maxCostUsd: 1 } });
    expect(story(refused.records)).toMatchObject([{ outcome: 'failed', class: 'Misconfigured' }]);
    // A later call's outcome on another backend reaches its health workflow: the worker has flushed since.
    await run({ model: b.name, prompt: 'hi' });
    await until(fx.temporal.client, b.name, (s) => s.breaker.recent.length > 0);
    const seen = await readHealth(fx.temporal.client, healthWorkflowId(taskQueue, x.name));
    expect(seen?.breaker.recent ?? []).toEqual([]);
    expect(fx.lp.requestCount(x.id)).toBe(0);
  });

  it('model-retry health lists every backend with its state; health reset BACKEND closes one', async () => {
    const [e, b] = [model('e'), model('b')];
    fx.lp.script(e.id, [rateLimited(600), { ...ok('from e'), repeat: true }]);
    fx.lp.script(b.id, [{ ...ok('from b'), repeat: true }]);
    await run({ model: [e.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    await until(fx.temporal.client, e.name, (s) => s.breaker.phase === 'open');
    const env = cliEnv(taskQueue);
    const listed = await runCli(['health', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as HealthRow[];
    expect(rows.find((r) => r.backend === e.name)).toMatchObject({
      state: 'open',
      reason: 'retry-after',
      trips: 1,
    });
    expect(rows.find((r) => r.backend === b.name)).toMatchObject({ state: 'closed' });
    const text = await runCli(['health'], env);
    expect(text.stdout).toMatch(new RegExp(`${e.name}  open \\(retry-after\\) since .* until `));

    const reset = await runCli(['health', 'reset', e.name], env);
    expect(reset.code, reset.stderr).toBe(0);
    await until(fx.temporal.client, e.name, (s) => s.breaker.phase === 'closed');
    // The worker re-reads every 200 ms here; give it a generous moment to see the reset.
    await new Promise((r) => setTimeout(r, 2_000));
    const after = await run({ model: [e.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(after.result?.output.text).toBe('from e');
    expect((await runCli(['health', 'reset', 'hl:nothing'], env)).code).toBe(2);
  });
});
