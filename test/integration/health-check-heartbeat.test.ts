import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { WorkerPlugin } from '@temporalio/worker';
import { createModelRetryWorkers } from '../../worker/worker.js';
import type { ModelRetryWorkers } from '../../worker/limit-workers.js';
import { readHealth } from '../../activities/health/read.js';
import { atTime } from '../../policy/index.js';
import { MAX_MESSAGE_CHARS } from '../../activities/scrub.js';
import { HEALTH_CLAIM_SIGNAL, healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import type { ModelCallInput } from '../../common/call.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../workflows/call/model-request.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, hang, ok, rateLimited } from '../../loopback/index.js';
import { finishCall, loopbackProviders, story } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The fleet-health check before an attempt sends (a read of the backend's state, a probe claim: RPCs to Temporal)
 * runs under the attempt's heartbeat: a slow one is no lost worker, an attempt given up during it sends nothing,
 * and one that fails is a classified attempt failure. The worker's own client is slowed or failed through a
 * client interceptor (a worker plugin), for the health workflows' RPCs only.
 */
describe('the fleet-health check before sending', () => {
  const { fx } = useFixture({ worker: false });
  const taskQueue = `health-check-${Date.now()}`;
  let connection: NativeConnection;
  let workers: ModelRetryWorkers;
  let running: Promise<void>;
  let n = 0;
  const model = (provider: 'hc' | 'hp' | 'hs' | 'ok', name: string) => {
    n += 1;
    return { id: `${name}-${n}`, name: `${provider}:${name}-${n}` };
  };

  /** Per health workflow id: what its next describe waits for (once). */
  const holdRead = new Map<string, Promise<unknown>>();
  const readsHeld = new Map<string, number>();
  const readsDone = new Map<string, number>();
  /** What the next probe claims wait for before they are sent. */
  let holdClaims: Promise<unknown> | undefined;
  let claimsHeld = 0;
  /** Claims refused by the client, as a server that cannot be reached would. */
  let refuseClaims = false;
  let claimsRefused = 0;
  const interceptor: WorkflowClientInterceptor = {
    describe: async (input, next) => {
      const id = input.workflowExecution.workflowId ?? '';
      const hold = holdRead.get(id);
      if (hold !== undefined) {
        holdRead.delete(id);
        readsHeld.set(id, (readsHeld.get(id) ?? 0) + 1);
        await hold;
        try {
          return await next(input);
        } finally {
          // Answered or refused (a backend with no health workflow yet is not found): the read is over.
          readsDone.set(id, (readsDone.get(id) ?? 0) + 1);
        }
      }
      return next(input);
    },
    signalWithStart: async (input, next) => {
      if (refuseClaims && input.signalName === HEALTH_CLAIM_SIGNAL) {
        claimsRefused += 1;
        const error = new Error(`14 UNAVAILABLE: connection refused ${'x'.repeat(5_000)}`);
        error.stack = `${error.message}\n    at signalWithStart (client.js:1:1)`;
        throw error;
      }
      if (holdClaims !== undefined && input.signalName === HEALTH_CLAIM_SIGNAL) {
        claimsHeld += 1;
        await holdClaims;
      }
      return next(input);
    },
  };
  const slowHealthRpcs: WorkerPlugin = {
    name: 'test-health-rpcs',
    configureWorker: (options) => ({
      ...options,
      interceptors: { ...options.interceptors, client: { workflow: [interceptor] } },
    }),
  };

  beforeAll(async () => {
    const providers = loopbackProviders(fx.lp, {
      hc: { health: { trip: { failures: 1, windowMs: 60_000 }, coolDownMs: 1_000 } },
      // Probes answered within a 20 s cool-down: a probe let go sooner was given back, not expired.
      hp: { health: { trip: { failures: 100, windowMs: 60_000 }, coolDownMs: 20_000 } },
      // The same, with one request at a time per worker: an attempt holding the probe can wait for the slot.
      hs: {
        health: { trip: { failures: 100, windowMs: 60_000 }, coolDownMs: 20_000 },
        limits: { maxInFlight: 1 },
      },
      ok: { health: false },
    });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    workers = await createModelRetryWorkers({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceMs: 2_000,
      deps: { providers, health: { flushMs: 100, refreshMs: 200 } },
      plugins: [slowHealthRpcs],
    });
    running = workers.run();
  });
  afterAll(async () => {
    workers.shutdown();
    await running;
    await connection.close();
    for await (const w of fx.temporal.client.workflow.list({
      query: `WorkflowId STARTS_WITH "model-retry-health:${taskQueue}:"`,
    })) {
      if (w.status.name === 'RUNNING')
        await fx.temporal.client.workflow.getHandle(w.workflowId).terminate('test over');
    }
  });

  const start = (input: ModelCallInput) => startModelCall(fx.temporal.client, input, { taskQueue });
  const run = async (input: ModelCallInput) => finishCall(fx, await start(input));

  /**
   * Past its open time with the probe free: the next attempt claims it. Read through `atTime`, since the health
   * workflow's own timer turns an `open` past its `until` into `half-open` moments later, and a poll may see
   * either.
   */
  const probeFree = (s: HealthSnapshot): boolean => {
    const b = atTime(s.breaker, Date.now());
    return b.phase === 'half-open' && b.probe === undefined;
  };

  async function untilHealth(
    backend: string,
    ok: (s: HealthSnapshot) => boolean,
    timeoutMs = 60_000,
  ): Promise<HealthSnapshot> {
    return until(
      `the health of ${backend}`,
      async () => {
        const s = await readHealth(fx.temporal.client, healthWorkflowId(taskQueue, backend));
        return s !== undefined && ok(s) ? s : undefined;
      },
      timeoutMs,
    );
  }

  it('a check slower than the heartbeat timeout is no lost worker: the attempt sends once and answers', async () => {
    const m = model('hc', 'slow-read');
    fx.lp.script(m.id, [{ ...ok('after a slow check'), repeat: true }]);
    // The first read of this backend's state (the worker has never seen it) answers after the heartbeat timeout.
    holdRead.set(healthWorkflowId(taskQueue, m.name), sleep(HEARTBEAT_TIMEOUT_MS + 3_000));
    const call = await run({ model: m.name, prompt: 'hi' });
    expect(readsHeld.get(healthWorkflowId(taskQueue, m.name))).toBe(1);
    expect(story(call.records)).toEqual([{ backend: 0, outcome: 'succeeded' }]);
    expect(call.result?.output.text).toBe('after a slow check');
    await fx.lp.idle();
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('an attempt cancelled while its check waits leaves at once and never sends', async () => {
    const m = model('hc', 'cancelled-read');
    fx.lp.script(m.id, [hang()]);
    const id = healthWorkflowId(taskQueue, m.name);
    let release: (v?: unknown) => void = () => undefined;
    holdRead.set(id, new Promise((r) => (release = r)));
    try {
      const handle = await start({ model: m.name, prompt: 'hi' });
      await until('the held read', async () => (readsHeld.get(id) === 1 ? true : undefined));
      await handle.cancel();
      // The attempt reports its cancel while the read is still held: it heard of it through its heartbeat.
      await until('the attempt cancelled', async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        return events.map(eventTypeName).includes('ActivityTaskCanceled') ? true : undefined;
      });
      release();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
      // The read answered: the check the attempt left ends now, and must send nothing.
      await until('the held read answered', async () => (readsDone.get(id) === 1 ? true : undefined));
      await fx.lp.idle();
      expect(fx.lp.requestCount(m.id)).toBe(0);
    } finally {
      release();
    }
  });

  it('a probe claim that Temporal refuses fails the attempt as CoolingDown, bounded, with its times', async () => {
    const [c, y] = [model('hc', 'refused-claim'), model('ok', 'other')];
    fx.lp.script(c.id, [fail(503), { ...ok('never'), repeat: true }]);
    fx.lp.script(y.id, [{ ...ok('from the other'), repeat: true }]);
    // One 503 trips it (failures: 1); the next attempt on it is held back, the call answers from the other.
    const first = await run({ model: [c.name, y.name], prompt: 'hi', retry: { waits: [10] } });
    expect(first.result?.output.text).toBe('from the other');
    // Past its 1 s cool-down the probe is free: the next attempt asks for it, and the claim is refused.
    await untilHealth(c.name, probeFree);
    refuseClaims = true;
    try {
      const second = await run({ model: [c.name, y.name], prompt: 'hi', retry: { waits: [10] } });
      expect(claimsRefused).toBeGreaterThanOrEqual(1);
      expect(second.result?.output.text).toBe('from the other');
      const [refused] = second.records;
      expect(refused?.failure?.class).toBe('CoolingDown');
      expect(refused?.failure?.action).toBe('advance');
      expect(refused?.failure?.retryAfterMs).toBeGreaterThan(0);
      expect(refused?.failure?.message).toMatch(/^fleet health could not check backend hc:refused-claim/);
      expect(refused?.failure?.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
      expect(refused?.failure?.message).not.toMatch(/\bat signalWithStart\b/);
      expect(refused?.startedAt).toBeTruthy();
      expect(refused?.endedAt).toBeTruthy();
      expect(fx.lp.requestCount(c.id)).toBe(1);
    } finally {
      refuseClaims = false;
    }
  });

  it('a probe granted to an attempt cancelled while it waited for it is given back at once, and nothing is sent', async () => {
    const m = model('hp', 'late-probe');
    fx.lp.script(m.id, [rateLimited(1), hang()]);
    // A retry-after of 1 s opens it for the fleet; past it, the next attempt claims the probe.
    const first = await run({ model: m.name, prompt: 'hi', retry: { maxAttempts: 1 } });
    expect(first.records.map((r) => r.failure?.class)).toEqual(['RateLimited']);
    await untilHealth(m.name, probeFree);
    let release: (v?: unknown) => void = () => undefined;
    holdClaims = new Promise((r) => (release = r));
    const held = claimsHeld;
    try {
      const handle = await start({ model: m.name, prompt: 'hi' });
      await until('the held claim', async () => (claimsHeld > held ? true : undefined));
      await handle.cancel();
      await until('the attempt cancelled', async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        return events.map(eventTypeName).includes('ActivityTaskCanceled') ? true : undefined;
      });
      holdClaims = undefined;
      release();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
      // The claim reaches the health workflow now and is granted to the attempt that left: it gives the probe back
      // well within the cool-down, instead of holding the fleet's one probe for it.
      const s = await untilHealth(
        m.name,
        (h) => h.breaker.probes >= 1 && h.breaker.probe === undefined,
        15_000,
      );
      expect(s.breaker.phase).toBe('half-open');
      await fx.lp.idle();
      expect(fx.lp.requestCount(m.id)).toBe(1);
    } finally {
      holdClaims = undefined;
      release();
    }
  });

  it('a probe held by an attempt cancelled before it sent (waiting for its slot) is given back at once', async () => {
    const [m, busy] = [model('hs', 'slot-probe'), model('hs', 'busy')];
    fx.lp.script(m.id, [rateLimited(1), hang()]);
    fx.lp.script(busy.id, [{ ...hang(), repeat: true }]);
    const first = await run({ model: m.name, prompt: 'hi', retry: { maxAttempts: 1 } });
    expect(first.records.map((r) => r.failure?.class)).toEqual(['RateLimited']);
    await untilHealth(m.name, probeFree);
    // Another backend of the provider takes the worker's one slot and keeps it.
    const holder = await start({ model: busy.name, prompt: 'hi', retry: { maxAttempts: 1 } });
    await until('the slot taken', async () => (fx.lp.requestCount(busy.id) >= 1 ? true : undefined));
    const handle = await start({ model: m.name, prompt: 'hi' });
    try {
      // The attempt is granted the probe, then waits for the slot.
      await untilHealth(m.name, (h) => h.breaker.probe !== undefined);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
      // Nothing went out: the probe is given back well within the 20 s cool-down, not held until it ends.
      const s = await untilHealth(
        m.name,
        (h) => h.breaker.probes >= 1 && h.breaker.probe === undefined,
        15_000,
      );
      expect(s.breaker.phase).toBe('half-open');
      expect(fx.lp.requestCount(m.id)).toBe(1);
    } finally {
      await holder.cancel();
      await holder.result().catch(() => undefined);
    }
  });
});
