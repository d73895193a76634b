/**
 * Cancel latency and `WorkerLost` detection at a few heartbeat cadences, for
 * docs/decisions/call/009-heartbeat-cadence.md:
 *
 *   bash scripts/with-toolchain.sh tsx bench/profile/measure-cadence.ts [--cadences 1000,5000,10000] [--samples 5]
 *
 * On a dev server of its own, with the loopback provider. Cancel: `samples` calls whose provider never answers,
 * each cancelled at a moment spread over one heartbeat of its request; the latency is from the cancel request
 * to the provider seeing the request aborted. WorkerLost: `samples` calls on a `model-retry worker --heartbeat-ms
 * c` process, their requests started at moments spread over one heartbeat; the process is killed (SIGKILL) and
 * the detection is from the kill to the server's `ActivityTaskTimedOut` (HEARTBEAT) event of each attempt.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startModelCall } from '../../client/model-call-client.js';
import { hang } from '../../loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import { openBenchContext } from '../../test/harness/lab.js';
import { until } from '../../test/harness/until.js';

const CLI = fileURLToPath(new URL('../../bin/model-retry.js', import.meta.url));

const { values } = parseArgs({
  options: {
    cadences: { type: 'string', default: '1000,5000,10000' },
    samples: { type: 'string', default: '5' },
  },
});
const cadences = values.cadences.split(',').map(Number);
const samples = Number(values.samples);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${(s[0] ?? NaN).toFixed(0)}, median ${(s[Math.floor(s.length / 2)] ?? NaN).toFixed(0)}, max ${(s[s.length - 1] ?? NaN).toFixed(0)} ms`;
};

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // The lab's dev server (SQLite in a file), bundle (model-retry's workflows among the lab's) and loopback provider.
  const ctx = await openBenchContext({ size: 'full', log: () => undefined });
  const { client, native, lp, providers, providersFile } = ctx;
  const rows: string[] = [];
  let n = 0;
  try {
    for (const c of cadences) {
      // Cancel latency: an in-process worker at cadence c.
      const taskQueue = `cadence-cancel-${c}`;
      const worker = await createModelRetryWorker({
        connection: native,
        namespace: ctx.namespace,
        taskQueue,
        workflowBundle: { codePath: ctx.bundlePath },
        shutdownGraceMs: 1000,
        heartbeatThrottleMs: c,
        deps: { providers },
        warn: () => undefined,
      });
      const running = worker.run();
      const cancels = await Promise.all(
        Array.from({ length: samples }, async (_, i) => {
          const model = `cancel-${(n += 1)}`;
          lp.script(model, [hang()]);
          const handle = await startModelCall(
            client,
            { model: `local:${model}`, prompt: 'hi' },
            { taskQueue },
          );
          await until('the request', () => (lp.requestCount(model) === 1 ? true : undefined), 120_000, 20);
          await sleep(((i + 0.5) / samples) * c);
          const at = Date.now();
          await handle.cancel();
          const ended = await until('the abort', () => lp.requests(model)[0]?.endedAt, 120_000, 20);
          await handle.result().catch(() => undefined);
          return ended - at;
        }),
      );
      worker.shutdown();
      await running;

      // WorkerLost detection: a worker process at cadence c, killed with the attempts in flight.
      const lostQueue = `cadence-lost-${c}`;
      const child = spawn(
        process.execPath,
        [CLI, 'worker', '--providers', providersFile, '--task-queue', lostQueue, '--heartbeat-ms', String(c)],
        {
          env: { ...process.env, TEMPORAL_ADDRESS: ctx.address, ...ctx.workerEnv },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await until(
        'the worker polling',
        () => (stderr.includes('polling task queue') ? true : undefined),
        300_000,
        20,
      );
      const handles: WorkflowHandle[] = [];
      for (let i = 0; i < samples; i += 1) {
        const model = `lost-${(n += 1)}`;
        lp.script(model, [hang()]);
        handles.push(
          await startModelCall(client, { model: `local:${model}`, prompt: 'hi' }, { taskQueue: lostQueue }),
        );
        await until('the request', () => (lp.requestCount(model) === 1 ? true : undefined), 120_000, 20);
        await sleep(c / samples);
      }
      await sleep(c);
      const killedAt = Date.now();
      child.kill('SIGKILL');
      const detections = await Promise.all(
        handles.map(async (handle) => {
          const at = await until(
            'the heartbeat timeout',
            async () => {
              const { events } = await handle.fetchHistory();
              const timedOut = events?.find((e) => e.activityTaskTimedOutEventAttributes);
              return timedOut?.eventTime
                ? Number(timedOut.eventTime.seconds) * 1000 + (timedOut.eventTime.nanos ?? 0) / 1e6
                : undefined;
            },
            10 * c + 60_000,
            20,
          );
          await handle.terminate('measured').catch(() => undefined);
          return at - killedAt;
        }),
      );
      const row = `| ${c} ms | ${3 * c} ms | ${fmt(cancels)} | ${fmt(detections)} |`;
      console.log(row);
      rows.push(row);
    }
  } finally {
    await ctx.close();
  }
  console.log(
    [
      `| heartbeat every (c) | heartbeat timeout (3c) | cancel to request aborted (${samples} calls) | kill -9 to WorkerLost (${samples} attempts) |`,
      '| --- | ---: | ---: | ---: |',
      ...rows,
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
