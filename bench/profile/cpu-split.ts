/**
 * Splits V8 CPU profiles (`node --cpu-prof`) of a profile run into where the time went, per call: the workflow
 * sandbox's code by module (model-retry's own, Temporal's workflow runtime, the floor's workflow), the worker's and
 * client's Temporal code, the AI SDK, our activities, Node's internals and the garbage collector. Each folder is
 * one process's profiles (the main thread and the workflow thread each write one); folders side by side make the
 * columns, so a floor's run and ours read as a difference. Not part of the product.
 *
 *   MODEL_RETRY_PROFILE_BUNDLE=/tmp/prof-mcw/bundle.js \
 *     node --cpu-prof --cpu-prof-dir=/tmp/prof-mcw --import tsx bench/profile/calls.ts 300 2 mcw no
 *   tsx bench/profile/cpu-split.ts <calls per folder> /tmp/prof-plain /tmp/prof-mcw
 *
 * The bundle a run's workflow thread evaluated is read from `bundle.js` in its folder (the profile script writes
 * it there when `MODEL_RETRY_PROFILE_BUNDLE` names that file): its lines map to modules by webpack's own headers
 * (`/*** / "./path"` for a module, `;// ./path` for one concatenated into another).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a line of the bundle belongs: the module whose header comes last before it. */
function bundleModules(code: string): (line: number) => string {
  const starts: { line: number; path: string }[] = [];
  code.split('\n').forEach((text, i) => {
    const header = /^\/\*\*\*\/ "(.+)"/.exec(text) ?? /^;\/\/ (\.\/\S+)/.exec(text);
    if (header?.[1]) starts.push({ line: i, path: header[1] });
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = '(bundle runtime)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const start = starts[mid] as { line: number; path: string };
      if (start.line <= line) {
        found = start.path;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** The category of a bundle module (workflow code, in the sandbox). */
function sandboxCategory(path: string): string {
  if (path.includes('@temporalio/workflow-streams')) return 'sandbox: @temporalio/workflow-streams';
  if (path.includes('@temporalio/workflow/')) return 'sandbox: @temporalio/workflow';
  if (path.includes('@temporalio/common/')) return 'sandbox: @temporalio/common';
  if (path.includes('@opentelemetry')) return 'sandbox: @opentelemetry/api';
  if (path.includes('node_modules')) return 'sandbox: other libraries';
  if (path.startsWith('./scripts/')) return 'sandbox: the floor / user workflow';
  if (/^\.\/(workflows|policy|common)\//.test(path)) return `sandbox: model-retry ${path.split('/')[1]}/`;
  return `sandbox: ${path}`;
}

/** The category of code outside the sandbox, by its URL. */
function hostCategory(url: string, fn: string): string {
  if (url === '') {
    if (fn === '(garbage collector)') return 'garbage collector';
    if (fn === '(program)') return 'V8 (program: no JavaScript frame)';
    // Temporal's workflow thread enters the sandbox through `vm` (its microtasks run inside the call), and
    // sends each activation's completion back to the main thread.
    if (fn === '(idle)' || fn === '(root)') return fn;
    if (fn === 'runInContext' || fn === 'postMessage') return `(${fn})`;
    return 'V8 built-ins (regular expressions, JSON, ...)';
  }
  if (url.startsWith('evalmachine.')) return 'sandbox: vm glue (evalmachine)';
  if (/webpack|memfs|terser|esbuild|\/tsx\/|@swc|enhanced-resolve|schema-utils|source-map/.test(url))
    return 'set-up (bundling, transpiling)';
  if (url.startsWith('node:')) return 'node internals';
  const lib = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (lib) {
    if (lib.startsWith('@temporalio/')) return `host: ${lib}`;
    if (lib === 'ai' || lib.startsWith('@ai-sdk/')) return 'host: AI SDK';
    if (lib === 'protobufjs' || lib.startsWith('@protobufjs/') || lib === 'long') return 'host: protobufjs';
    return `host: ${lib}`;
  }
  const own = /\/(activities|loopback|client|worker|scripts|common|policy|bench)\//.exec(url)?.[1];
  if (own === 'loopback') return 'host: loopback provider (test server)';
  if (own === 'scripts' || own === 'bench') return 'host: profile script, floor activity';
  if (own) return `host: model-retry ${own}/`;
  return `host: ${url}`;
}

/** Milliseconds of self time by category, over every profile in `dir`. */
function split(dir: string): Map<string, number> {
  const bundle = join(dir, 'bundle.js');
  const moduleOf = existsSync(bundle) ? bundleModules(readFileSync(bundle, 'utf8')) : undefined;
  const totals = new Map<string, number>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const category = new Map<number, string>();
    for (const node of profile.nodes) {
      const { url, functionName, lineNumber } = node.callFrame;
      const inBundle = /workflow-bundle-[0-9a-f]+\.js$/.test(url);
      category.set(
        node.id,
        inBundle
          ? sandboxCategory(moduleOf ? moduleOf(lineNumber) : '(no bundle.js in folder)')
          : hostCategory(url, functionName),
      );
    }
    profile.samples.forEach((id, i) => {
      const name = category.get(id) ?? '(unknown)';
      totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
  }
  return totals;
}

function main(): void {
  const [callsArg, ...dirs] = process.argv.slice(2);
  const calls = Number(callsArg);
  if (!Number.isFinite(calls) || calls <= 0 || dirs.length === 0) {
    console.error('usage: tsx bench/profile/cpu-split.ts <calls per folder> <profile folder>...');
    process.exit(2);
  }
  const columns = dirs.map(split);
  const names = [...new Set(columns.flatMap((c) => [...c.keys()]))].filter(
    (n) => n !== '(idle)' && n !== '(root)',
  );
  // Rows under 0.01 ms per call in every column go into one line.
  const small = names.filter((n) => columns.every((c) => (c.get(n) ?? 0) / calls < 0.01));
  for (const c of columns)
    c.set(
      '(the rest, each under 0.01 ms)',
      small.reduce((t, n) => t + (c.get(n) ?? 0), 0),
    );
  names.splice(0, names.length, ...names.filter((n) => !small.includes(n)), '(the rest, each under 0.01 ms)');
  const perCall = (c: Map<string, number>, n: string) => (c.get(n) ?? 0) / calls;
  names.sort(
    (a, b) => Math.max(...columns.map((c) => perCall(c, b))) - Math.max(...columns.map((c) => perCall(c, a))),
  );
  const width = Math.max(...names.map((n) => n.length), 32);
  console.log(
    `${'ms of CPU per call'.padEnd(width)}  ${dirs.map((d) => d.split('/').pop()?.padStart(12)).join('')}`,
  );
  const counted = names.filter((n) => n !== 'set-up (bundling, transpiling)');
  for (const n of [...counted, 'set-up (bundling, transpiling)']) {
    if (!names.includes(n)) continue;
    console.log(`${n.padEnd(width)}  ${columns.map((c) => perCall(c, n).toFixed(2).padStart(12)).join('')}`);
  }
  const total = (c: Map<string, number>) => counted.reduce((s, n) => s + perCall(c, n), 0);
  console.log(
    `${'total (without set-up and idle)'.padEnd(width)}  ${columns.map((c) => total(c).toFixed(2).padStart(12)).join('')}`,
  );
}

main();
