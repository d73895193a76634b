import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { modelRetryWebpackConfigHook } from '../../plugin/bundle.js';
import { HEARTBEAT_INTERVAL_MS } from '../../activities/heartbeat.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import { startDevServer } from '../../worker/dev-server.js';
import { startLoopbackProvider } from '../../loopback/index.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { createModelRetryWorker, workerSlots } from '../../worker/worker.js';
import type { WorkerTuning } from '../../worker/worker.js';
import { quietBundleLogger } from './quiet.js';
import { runWorker } from './run-worker.js';
import type { BenchWorker } from './run-worker.js';
import { createServerRetryActivities } from './server-retry-activities.js';

/** Quick: a smoke run of the benchmark code in seconds. Full: the figures for BENCHMARKS.md. */
export type BenchSize = 'quick' | 'full';

/** The key variable of the bench's loopback provider (no real key exists; it proves none leaks). */
export const BENCH_KEY_ENV = 'MODEL_RETRY_BENCH_KEY';
const BENCH_KEY = 'sk-loopback-bench-0123456789';

export type { BenchWorker };

/**
 * What every benchmark of one run shares: ONE Temporal dev server (or the address of one given), the workflow
 * bundle built once, one loopback provider with a provider registry pointing at it, and connections.
 */
export interface BenchContext {
  size: BenchSize;
  address: string;
  namespace: string;
  client: Client;
  native: NativeConnection;
  lp: LoopbackProvider;
  providers: ProviderRegistry;
  /** The bench bundle (model-retry's workflows + `serverRetryWorkflow`), as a file. */
  bundlePath: string;
  /** A providers file (`MODEL_RETRY_PROVIDERS`) naming the loopback provider `local`, for worker processes. */
  providersFile: string;
  /** The environment a worker process needs besides `TEMPORAL_ADDRESS` (the loopback key). */
  workerEnv: Record<string, string>;
  /** A model id no other benchmark of the run uses (`<prefix>-<n>`) and its name `local:<id>`. */
  model(prefix: string): { id: string; name: string };
  /** model-retry's own worker (`createModelRetryWorker`), in this process. */
  startWorker(options?: { tuning?: WorkerTuning; dataConverter?: DataConverter }): Promise<BenchWorker>;
  /** A worker for the bench-only `serverRetryWorkflow` (and model-retry's workflows), in this process. */
  startServerRetryWorker(): Promise<BenchWorker>;
  log(line: string): void;
  close(): Promise<void>;
}

export interface OpenOptions {
  size: BenchSize;
  /** Use this Temporal server instead of starting a dev server (the smoke test passes the suite's). */
  address?: string;
  namespace?: string;
  /** More `temporal server start-dev` arguments (e.g. dynamic config) for the dev server the run starts. */
  serverArgs?: string[];
  /** Keep the dev server's SQLite in memory instead of a file (WAL), to tell disk from database costs. */
  inMemory?: boolean;
  log?: (line: string) => void;
}

/** The lab's workflows: model-retry's own, the floor, the server-retry baseline and a user's workflow. */
export const LAB_WORKFLOWS = fileURLToPath(new URL('./bundle/index.ts', import.meta.url));

/**
 * The lab's workflow bundle, built quietly as the product bundles it (ModelRetryPlugin, createModelRetryWorker:
 * model-retry's modules as one); with `asShipped: false`, webpack's modules as Temporal bundles them by default.
 */
export function bundleLab(options: { asShipped?: boolean } = {}): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: LAB_WORKFLOWS,
    logger: quietBundleLogger,
    ...(options.asShipped === false ? {} : { webpackConfigHook: modelRetryWebpackConfigHook() }),
  });
}

export async function openBenchContext(options: OpenOptions): Promise<BenchContext> {
  const log = options.log ?? ((line: string) => console.error(line));
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-'));
  const started = Date.now();
  const [server, bundle, lp] = await Promise.all([
    options.address
      ? Promise.resolve(undefined)
      : startDevServer({
          ...(options.inMemory ? {} : { dbFilename: join(dir, 'bench.sqlite') }),
          extraArgs: options.serverArgs ?? [],
        }),
    bundleLab(),
    startLoopbackProvider(),
  ]);
  const address = server?.address ?? (options.address as string);
  const namespace = server?.namespace ?? options.namespace ?? 'default';
  log(
    `bench: ${server ? 'dev server' : 'server'} at ${address}, bundle built, loopback at ${lp.url} ` +
      `(${Date.now() - started} ms)`,
  );
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  const local = { type: 'openai-compatible' as const, baseURL: lp.openaiBaseURL, apiKeyEnv: BENCH_KEY_ENV };
  const providersFile = join(dir, 'providers.json');
  writeFileSync(providersFile, JSON.stringify({ local }));
  const providers = createProviderRegistry({ local }, { env: { [BENCH_KEY_ENV]: BENCH_KEY } });
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace });
  const running = new Set<BenchWorker>();
  const counters = new Map<string, number>();

  const track = (worker: Worker, taskQueue: string): BenchWorker => {
    const run = runWorker(worker, taskQueue);
    const handle: BenchWorker = {
      taskQueue,
      stop() {
        running.delete(handle);
        return run.stop();
      },
    };
    running.add(handle);
    return handle;
  };

  return {
    size: options.size,
    address,
    namespace,
    client,
    native,
    lp,
    providers,
    bundlePath,
    providersFile,
    workerEnv: { [BENCH_KEY_ENV]: BENCH_KEY, MODEL_RETRY_PROVIDERS: providersFile },
    model(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      const id = `${prefix}-${n}`;
      return { id, name: `local:${id}` };
    },
    async startWorker(opts = {}) {
      const taskQueue = `bench-${randomUUID()}`;
      const worker = await createModelRetryWorker({
        connection: native,
        namespace,
        taskQueue,
        workflowBundle: { codePath: bundlePath },
        shutdownGraceMs: 2000,
        deps: { providers },
        warn: log,
        ...(opts.tuning ? { tuning: opts.tuning } : {}),
        ...(opts.dataConverter ? { dataConverter: opts.dataConverter } : {}),
      });
      return track(worker, taskQueue);
    },
    async startServerRetryWorker() {
      const taskQueue = `bench-server-retry-${randomUUID()}`;
      const activities = createActivities({ providers });
      const worker = await Worker.create({
        connection: native,
        namespace,
        taskQueue,
        workflowBundle: { codePath: bundlePath },
        activities: { ...activities, ...createServerRetryActivities(activities.modelRequest) },
        shutdownGraceTime: 2000,
        // As model-retry's worker: the attempt heartbeats, and the throttle is the same.
        maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
        ...workerSlots(),
      });
      return track(worker, taskQueue);
    },
    log,
    async close() {
      await Promise.all([...running].map((w) => w.stop()));
      await native.close();
      await connection.close();
      await lp.close();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
