/**
 * What instantiating a workflow bundle's modules costs each workflow run. Temporal's worker (reused V8 context)
 * evaluates the bundle once, and the modules its entry loads before any workflow (Temporal's own, the plugin's
 * preloads) are shared; every module the workflows file imports is instantiated afresh in each run and each replay
 * (module state is per run). This runs exactly that step (`importWorkflows` with an empty per-run module cache) in a
 * `vm` context of a child process of its own, as the worker sets it up, and reads its CPU and the heap each run's
 * module instances keep.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { injectGlobals } from '@temporalio/worker/lib/workflow/vm-shared.js';

/** Per-run module figures of one bundle. */
export interface ModuleCost {
  /** Modules evaluated once per worker context (shared by every run). */
  sharedModules: number;
  /** Modules instantiated in every run. */
  perRunModules: number;
  /** CPU of one run's module instantiation (median after warm-up), ms. */
  cpuMs: number;
  /** Heap one run's module instances keep while the run is open (after GC), bytes. */
  heapBytes: number;
}

/** Measures `code` (a workflow bundle) in a child process: `runs` instantiations (the first tenth as warm-up). */
export async function measureModuleCost(code: string, runs: number): Promise<ModuleCost> {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-module-cost-'));
  try {
    const file = join(dir, 'bundle.js');
    writeFileSync(file, code);
    const self = fileURLToPath(import.meta.url);
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', self, file, String(runs)],
        { maxBuffer: 1 << 20 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ModuleCost;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureHere(file: string, runs: number): ModuleCost {
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  const shared = new Map<string | symbol, unknown>();
  let perRun: Map<string | symbol, unknown> | undefined;
  // The worker's module cache (reusable-vm.ts): shared until a run exists, then per run.
  const cache = new Proxy(
    {},
    {
      get: (_, p) => shared.get(p) ?? perRun?.get(p),
      set: (_, p, value) => {
        (perRun ?? shared).set(p, value);
        return true;
      },
    },
  );
  Object.defineProperty(context, '__webpack_module_cache__', { value: cache });
  injectGlobals(context);
  new vm.Script(readFileSync(file, 'utf8'), { filename: file }).runInContext(context);
  new vm.Script('__TEMPORAL__.preloadModules?.()').runInContext(context);
  const load = new vm.Script('__TEMPORAL__.importWorkflows()');
  const cpu: number[] = [];
  let perRunModules = 0;
  for (let i = 0; i < runs; i++) {
    perRun = new Map();
    const c0 = process.cpuUsage();
    load.runInContext(context);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    perRunModules = perRun.size;
  }
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const kept: unknown[] = [];
  const held = Math.max(10, Math.floor(runs / 2));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < held; i++) {
    perRun = new Map();
    load.runInContext(context);
    kept.push(perRun);
  }
  perRun = undefined;
  gc();
  const after = process.memoryUsage().heapUsed;
  const warm = cpu.slice(Math.max(1, Math.floor(runs / 10))).sort((a, b) => a - b);
  return {
    sharedModules: shared.size,
    perRunModules,
    cpuMs: warm[warm.length >> 1] ?? Number.NaN,
    heapBytes: Math.max(0, (after - before) / kept.length),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, runs] = process.argv.slice(2);
  console.log(JSON.stringify(measureHere(file ?? '', Number(runs ?? 20))));
}
