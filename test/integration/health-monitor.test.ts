import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { HealthMonitor } from '../../activities/health/monitor.js';
import { readHealth } from '../../activities/health/read.js';
import { HEALTH_CLAIM_SIGNAL, HEALTH_PRIORITY_KEY, healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import type { BreakerSettings } from '../../policy/index.js';
import { runCli } from '../harness/cli.js';
import { cliEnv, useFixture } from '../harness/fixture.js';
import type { TestWorker } from '../harness/temporal.js';

const S: BreakerSettings = { failures: 3, windowMs: 60_000, coolDownMs: 3_000, maxCoolDownMs: 300_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A worker's HealthMonitor against real health workflows (a worker on the task queue runs them): what it keeps
 * reading, and how much it asks of the server at once.
 */
describe('the health monitor', () => {
  const { fx } = useFixture({ worker: false });
  const taskQueue = `health-monitor-${Date.now()}`;
  let worker: TestWorker;
  let n = 0;
  const backend = (name: string) => `hm:${name}-${++n}`;

  beforeAll(async () => {
    worker = await fx.temporal.startWorker({ taskQueue });
  });
  afterAll(async () => {
    await worker.stop();
    for await (const w of fx.temporal.client.workflow.list({
      query: `WorkflowId STARTS_WITH "model-retry-health:${taskQueue}:"`,
    })) {
      if (w.status.name === 'RUNNING')
        await fx.temporal.client.workflow.getHandle(w.workflowId).terminate('test over');
    }
  });

  async function untilHealth(name: string, ok: (s: HealthSnapshot) => boolean): Promise<HealthSnapshot> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = await readHealth(fx.temporal.client, healthWorkflowId(taskQueue, name));
      if (s !== undefined && ok(s)) return s;
      if (Date.now() > deadline) throw new Error(`health of ${name}: ${JSON.stringify(s)}`);
      await sleep(100);
    }
  }

  it('a backend only checked (attempts held back by it never admit) keeps being re-read: a reset reaches them', async () => {
    const monitor = new HealthMonitor({ flushMs: 50, refreshMs: 100, idleMs: 500 });
    try {
      const b = backend('held');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
      monitor.report(taskQueue, b, { at: Date.now(), class: 'RateLimited', openUntil: Date.now() + 600_000 });
      await untilHealth(b, (s) => s.breaker.phase === 'open');
      // Three idle periods of checks only, as by the cooling check of calls held back by this backend.
      for (const end = Date.now() + 1_500; Date.now() < end; await sleep(100))
        expect(await monitor.coolingFor(taskQueue, b)).toBeGreaterThan(0);
      const reset = await runCli(['health', 'reset', b], cliEnv(taskQueue));
      expect(reset.code, reset.stderr).toBe(0);
      await untilHealth(b, (s) => s.breaker.phase === 'closed');
      // Re-read every 100 ms: seen well within 5 s.
      let cooling = await monitor.coolingFor(taskQueue, b);
      for (const end = Date.now() + 5_000; cooling !== undefined && Date.now() < end; await sleep(100))
        cooling = await monitor.coolingFor(taskQueue, b);
      expect(cooling).toBeUndefined();
    } finally {
      await monitor.close();
    }
  });

  it('a backend idle past idleMs is read again before its next attempt is admitted: a reset meanwhile is seen', async () => {
    const monitor = new HealthMonitor({ flushMs: 50, refreshMs: 100, idleMs: 300 });
    try {
      const b = backend('idle');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
      monitor.report(taskQueue, b, { at: Date.now(), class: 'RateLimited', openUntil: Date.now() + 600_000 });
      await untilHealth(b, (s) => s.breaker.phase === 'open');
      await sleep(600); // idle: no longer re-read
      const reset = await runCli(['health', 'reset', b], cliEnv(taskQueue));
      expect(reset.code, reset.stderr).toBe(0);
      await untilHealth(b, (s) => s.breaker.phase === 'closed');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
    } finally {
      await monitor.close();
    }
  });

  it('a cooling check after an idle spell reads the backend again: a stale "cooling" holds no attempt', async () => {
    const monitor = new HealthMonitor({ flushMs: 50, refreshMs: 100, idleMs: 300 });
    try {
      const b = backend('idle-check');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
      monitor.report(taskQueue, b, { at: Date.now(), class: 'RateLimited', openUntil: Date.now() + 600_000 });
      await untilHealth(b, (s) => s.breaker.phase === 'open');
      expect(await monitor.coolingFor(taskQueue, b)).toBeGreaterThan(0);
      await sleep(600); // idle: no longer re-read
      const reset = await runCli(['health', 'reset', b], cliEnv(taskQueue));
      expect(reset.code, reset.stderr).toBe(0);
      await untilHealth(b, (s) => s.breaker.phase === 'closed');
      expect(await monitor.coolingFor(taskQueue, b)).toBeUndefined();
    } finally {
      await monitor.close();
    }
  });

  it("a read made while this worker's batch is on its way does not undo its outcomes: the third failure trips its copy", async () => {
    // The outcomes signal is held at the client until released; describes go through at once.
    let release: () => void = () => undefined;
    let gate: Promise<void> | undefined;
    let held = 0;
    let reads = 0;
    const interceptor: WorkflowClientInterceptor = {
      describe: async (input, next) => {
        const out = await next(input);
        reads += 1;
        return out;
      },
      signalWithStart: async (input, next) => {
        if (gate !== undefined) {
          held += 1;
          await gate;
        }
        return next(input);
      },
    };
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: fx.temporal.client.options.namespace,
      interceptors: { workflow: [interceptor] },
    });
    const monitor = new HealthMonitor({ flushMs: 10, refreshMs: 10 });
    const b = backend('in-flight');
    try {
      expect(await monitor.admit(client, taskQueue, b, S)).toEqual({ kind: 'send' });
      monitor.report(taskQueue, b, { at: Date.now() });
      await untilHealth(b, (s) => s.breaker.recent.length === 1);
      gate = new Promise((r) => (release = r));
      monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      while (held === 0) await sleep(10);
      // Reads made and applied while the first failure's batch is still on its way.
      for (const after = reads + 3; reads < after;) await sleep(10);
      monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      expect((await monitor.admit(client, taskQueue, b, S)).kind).toBe('cooling');
      release();
      await untilHealth(b, (s) => s.breaker.phase === 'open');
      expect((await monitor.admit(client, taskQueue, b, S)).kind).toBe('cooling');
    } finally {
      release();
      await monitor.close();
    }
  });

  it("a probe claim that is not answered holds an attempt no longer than the attempt's time (until)", async () => {
    // Claims are held at the client for good: without the bound, admit would wait for the answer forever.
    let holding = false;
    let heldClaims = 0;
    const interceptor: WorkflowClientInterceptor = {
      signalWithStart: async (input, next) => {
        if (holding && input.signalName === HEALTH_CLAIM_SIGNAL) {
          heldClaims += 1;
          return new Promise<never>(() => undefined);
        }
        return next(input);
      },
    };
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: fx.temporal.client.options.namespace,
      interceptors: { workflow: [interceptor] },
    });
    const quick: BreakerSettings = { ...S, coolDownMs: 200 };
    const monitor = new HealthMonitor({ flushMs: 10, refreshMs: 10 });
    const b = backend('unanswered-claim');
    try {
      expect(await monitor.admit(client, taskQueue, b, quick)).toEqual({ kind: 'send' });
      for (let i = 0; i < 3; i++) monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      await untilHealth(b, (s) => s.breaker.phase === 'open');
      await sleep(300); // past the cool-down: the probe is free, and asking for it is a claim
      holding = true;
      const a = await monitor.admit(client, taskQueue, b, quick, Date.now() + 200);
      expect(a.kind).toBe('cooling');
      expect(heldClaims).toBe(1);
    } finally {
      holding = false;
      await monitor.close();
    }
  });

  it("a first read of the backend's state that does not answer holds an attempt no longer than its time (until)", async () => {
    // The health workflow's describe is held at the client for good: a new entry's first read never answers, and
    // without the bound admit would wait for it until Temporal's own timeout ended the attempt (ResponseTimeout,
    // with nothing sent).
    let heldReads = 0;
    const interceptor: WorkflowClientInterceptor = {
      describe: async () => {
        heldReads += 1;
        return new Promise<never>(() => undefined);
      },
    };
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: fx.temporal.client.options.namespace,
      interceptors: { workflow: [interceptor] },
    });
    const monitor = new HealthMonitor({ flushMs: 600_000, refreshMs: 600_000 });
    const b = backend('unanswered-read');
    try {
      const a = await Promise.race([
        monitor.admit(client, taskQueue, b, S, Date.now() + 200),
        sleep(10_000).then(() => 'still waiting' as const),
      ]);
      expect(a).toEqual({ kind: 'cooling', retryAfterMs: 1_000 });
      expect(heldReads).toBe(1);
    } finally {
      await monitor.close();
    }
  });

  it("the outcome that trips a worker's copy is sent at once, not with the next batch", async () => {
    // No flush for ten minutes: only the trip's own sending can reach the health workflow.
    const monitor = new HealthMonitor({ flushMs: 600_000, refreshMs: 100 });
    try {
      const b = backend('trip-now');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
      for (let i = 0; i < 3; i++) monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      const open = await untilHealth(b, (s) => s.breaker.phase === 'open');
      expect(open.breaker.recent.map((r) => r.outcome)).toEqual([
        'ServerError',
        'ServerError',
        'ServerError',
      ]);
    } finally {
      await monitor.close();
    }
  });

  it("starts a backend's health workflow at the highest task priority, ahead of the calls' own tasks", async () => {
    const monitor = new HealthMonitor({ flushMs: 50, refreshMs: 100 });
    try {
      const b = backend('priority');
      expect(await monitor.admit(fx.temporal.client, taskQueue, b, S)).toEqual({ kind: 'send' });
      monitor.report(taskQueue, b, { at: Date.now(), class: 'ServerError' });
      await untilHealth(b, (s) => s.breaker.recent.length === 1);
      const history = await fx.temporal.client.workflow
        .getHandle(healthWorkflowId(taskQueue, b))
        .fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.priority?.priorityKey).toBe(HEALTH_PRIORITY_KEY);
      expect(HEALTH_PRIORITY_KEY).toBe(1);
    } finally {
      await monitor.close();
    }
  });

  it('a slow server: at most one read and one flush in flight per backend, and no outcome is lost', async () => {
    // The server answers describes and signals after 400 ms, while the monitor's timers fire every 10 ms.
    const inFlight = { describe: 0, signalWithStart: 0 };
    const most = { describe: 0, signalWithStart: 0 };
    const calls = { describe: 0, signalWithStart: 0 };
    const slow = async <T>(kind: keyof typeof inFlight, next: () => Promise<T>): Promise<T> => {
      calls[kind] += 1;
      most[kind] = Math.max(most[kind], ++inFlight[kind]);
      try {
        await sleep(400);
        return await next();
      } finally {
        inFlight[kind] -= 1;
      }
    };
    const interceptor: WorkflowClientInterceptor = {
      describe: (input, next) => slow('describe', () => next(input)),
      signalWithStart: (input, next) => slow('signalWithStart', () => next(input)),
    };
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: fx.temporal.client.options.namespace,
      interceptors: { workflow: [interceptor] },
    });
    const monitor = new HealthMonitor({ flushMs: 10, refreshMs: 10 });
    const b = backend('slow');
    let last = 0;
    let reports = 0;
    // Outcomes keep coming until it has read and flushed four times each (each waiting on the slow server) and
    // sent 20 outcomes at least: counted, not timed, so a loaded machine only makes the loop longer.
    const enough = () => calls.describe >= 4 && calls.signalWithStart >= 4 && reports >= 20;
    try {
      await monitor.admit(client, taskQueue, b, S);
      for (const end = Date.now() + 60_000; !enough(); await sleep(20)) {
        if (Date.now() > end) throw new Error(`the monitor stalled: ${JSON.stringify({ calls, reports })}`);
        last = Date.now();
        monitor.report(taskQueue, b, { at: last });
        reports += 1;
      }
    } finally {
      await monitor.close();
    }
    // It kept reading and sending all along, one at a time.
    expect(most).toEqual({ describe: 1, signalWithStart: 1 });
    // Every batch arrived, the last one included (sent by close).
    const s = await untilHealth(b, (h) => h.breaker.recent.at(-1)?.at === last);
    expect(s.breaker.recent).toHaveLength(20);
  });
});
