/**
 * The lab's one worker process: model-retry's worker or the floor's in a process of its own, so that a benchmark
 * can read its peak memory and CPU time from /proc; with a load (`calls`), its client too, in the SAME process (as
 * the demo runs them), so that eager workflow start (a client sharing its connection with a worker) can be
 * measured. Started by `startWorkerProcess` / `startLoadWorker` (index.ts). argv: the path of a
 * `WorkerProcessSpec` JSON file. Prints `ready` once it polls; with a load, starts every call when a line `go`
 * arrives on stdin and prints `done <LoadWorkerReport JSON>` when all have ended (or the time is up). SIGTERM
 * stops it. Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, MODEL_RETRY_PROVIDERS and the key.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startModelCall } from '../../../client/model-call-client.js';
import type { ModelCallInput } from '../../../common/call.js';
import { createProcessWorker } from '../floor/worker.js';
import type { LoadWorkerReport, LoadWorkerSpec, PlannedCall, WorkerProcessSpec } from './load-worker-spec.js';

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as WorkerProcessSpec;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
  });
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  try {
    const worker = await createWorker(spec, connection, namespace);
    process.once('SIGTERM', () => worker.shutdown());
    const running = worker.run();
    console.log('ready');
    if (isLoad(spec)) {
      await nextLine('go');
      const client = new Client({ connection, namespace });
      const report = await drive(client, spec);
      console.log(`done ${JSON.stringify(report)}`);
    }
    await running;
  } finally {
    await connection.close();
  }
}

function isLoad(spec: WorkerProcessSpec): spec is LoadWorkerSpec {
  return spec.calls !== undefined;
}

function createWorker(spec: WorkerProcessSpec, connection: NativeConnection, namespace: string) {
  // The SDK's eager-activity reservations per workflow task: its default (3) when on, none when off; a worker
  // without a load leaves it at the SDK's default. Not in `WorkerTuning`'s type, but passed on to the worker.
  const tuning =
    spec.eagerActivities === undefined
      ? spec.tuning
      : { ...spec.tuning, maxEagerActivityReservationsPerWorkflowTask: spec.eagerActivities ? 3 : 0 };
  const { taskQueue, bundlePath } = spec;
  return createProcessWorker(spec.kind, { connection, namespace, taskQueue, bundlePath, tuning });
}

function nextLine(expected: string): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  return new Promise((resolve) => {
    lines.on('line', (line) => {
      if (line.trim() !== expected) return;
      lines.close();
      resolve();
    });
  });
}

/** Starts one call as its kind of host does; resolves when it started. */
function start(client: Client, spec: LoadWorkerSpec, call: PlannedCall) {
  const options = { taskQueue: spec.taskQueue, workflowId: call.workflowId };
  if (call.workflowType === 'modelCallWorkflow') {
    const eager = spec.eagerStart ? { requestEagerStart: true } : {};
    return startModelCall(client, call.input as ModelCallInput, { ...options, ...eager });
  }
  return client.workflow.start(call.workflowType, {
    ...options,
    args: [call.input],
    ...(spec.eagerStart ? { requestEagerStart: true } : {}),
  });
}

/** Starts every call at once and waits for their ends: each call's start-to-result time. */
async function drive(client: Client, spec: LoadWorkerSpec): Promise<LoadWorkerReport> {
  const t0 = Date.now();
  let startedAll = t0;
  let eager = 0;
  const latencies: number[] = [];
  const ends: number[] = [];
  let succeeded = 0;
  let failed = 0;
  let lastAt = t0;
  const settled = Promise.all(
    spec.calls.map(async (call) => {
      const from = Date.now();
      try {
        const handle = await start(client, spec, call);
        if ((handle as { eagerlyStarted?: boolean }).eagerlyStarted) eager += 1;
        startedAll = Math.max(startedAll, Date.now());
        await handle.result();
        succeeded += 1;
      } catch {
        failed += 1;
      }
      lastAt = Date.now();
      latencies.push(lastAt - from);
      ends.push(lastAt - t0);
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    settled.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), spec.timeoutMs))),
  ]);
  clearTimeout(timer);
  return {
    completionMs: (finished ? lastAt : Date.now()) - t0,
    startPhaseMs: startedAll - t0,
    latenciesMs: latencies,
    endsMs: ends,
    succeeded,
    failed,
    eagerlyStarted: eager,
    finished,
  };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('worker-process:', error);
    process.exit(1);
  },
);
