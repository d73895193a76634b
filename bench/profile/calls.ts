/**
 * Profiles the product's per-call cost against the platform's floor, outside the bench: N calls that
 * answer at once against the loopback provider on one dev server, the client and worker in this process, as
 * (a) the lab's floor, a plain workflow + plain activity making the same request (`plain`), (b) the floor plus
 * what the contract adds (a local activity for the worker's settings, the stop's search attributes: `contract`),
 * (c) `callModel` in a user's workflow (`user`), (d) `modelCallWorkflow` started through `startModelCall` (`mcw`). Rounds are interleaved and repeated; the
 * figure is this process's CPU time per call (user + system), and the ratios ours/floor within each round.
 * Then replays each kind's histories (`Worker.runReplayHistories`) and reports ms per event.
 *
 *   tsx bench/profile/calls.ts [calls=200] [rounds=3] [kinds=plain,contract,user,mcw] [replay=yes|no]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile/calls.ts 200 2 mcw
 *
 * The calls run on the workflow bundle as the product builds it (our modules concatenated). Where the CPU goes,
 * module by module and beside the floor: `bench/profile/cpu-split.ts` on one `--cpu-prof` folder per kind.
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { HEARTBEAT_INTERVAL_MS } from '../../activities/heartbeat.js';
import { startModelCall } from '../../client/model-call-client.js';
import { checkWorkerSearchAttributes, workerSlots } from '../../worker/worker.js';
import { always, ANY_MODEL, ok } from '../../loopback/index.js';
import { createFloorActivities } from '../../test/harness/floor/activities.js';
import { bundleLab } from '../../test/harness/lab.js';
import { perCall, rpcCounts } from './rpc-counts.js';
import { fetchHistories, startProfile } from './setup.js';

type Kind = 'plain' | 'contract' | 'user' | 'mcw';
const [callsArg, roundsArg, kindsArg, replayArg] = process.argv.slice(2);
const CALLS = Number(callsArg ?? 200);
const ROUNDS = Number(roundsArg ?? 3);
const KINDS = (kindsArg ?? 'plain,contract,user,mcw').split(',') as Kind[];

async function main(): Promise<void> {
  const profile = await startProfile();
  const { namespace, metricsPort, bundleCode, lp, providers, native, client } = profile;
  lp.script(ANY_MODEL, [always(ok('answered at once'))]);
  const taskQueue = `profile-${randomUUID()}`;
  // As model-retry's worker does at start: attempts then report the registered attributes from the first call on.
  await checkWorkerSearchAttributes({ connection: native, namespace, warn: console.error });
  const worker = await Worker.create({
    connection: native,
    namespace,
    taskQueue,
    workflowBundle: { code: bundleCode },
    activities: {
      ...createActivities({ providers }),
      ...createFloorActivities(() => providers),
    },
    maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
    ...workerSlots(),
  });
  const running = worker.run();
  const ids: Record<Kind, string[]> = { plain: [], contract: [], user: [], mcw: [] };
  // The dev server's requests per call of each kind's latest round (worker, client and server side alike).
  const rpcs: Record<Kind, string> = { plain: '', contract: '', user: '', mcw: '' };

  const start = (kind: Kind, i: number): Promise<WorkflowHandle> => {
    const model = `local:profile-${i}`;
    const workflowId = `profile-${kind}-${randomUUID()}`;
    ids[kind].push(workflowId);
    const input = { model, prompt: 'answer at once' };
    if (kind === 'plain') {
      const args = [{ ...input, attempts: 1, waitMs: 0 }];
      return client.workflow.start('floorPromptWorkflow', { taskQueue, workflowId, args });
    }
    if (kind === 'contract') {
      const messages = [{ role: 'user', content: input.prompt }];
      const args = [{ model, messages, timeoutMs: 25_000, waits: [] }];
      return client.workflow.start('contractFloorWorkflow', { taskQueue, workflowId, args });
    }
    if (kind === 'user')
      return client.workflow.start('userCallWorkflow', { taskQueue, workflowId, args: [input] });
    return startModelCall(client, input, { taskQueue, workflowId });
  };

  const round = async (kind: Kind, n: number) => {
    const rpc0 = await rpcCounts(metricsPort);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const handles = await Promise.all(Array.from({ length: n }, (_, i) => start(kind, i)));
    const settled = await Promise.allSettled(handles.map((h) => h.result()));
    const failed = settled.filter((s) => s.status === 'rejected').length;
    if (failed > 0) console.log(`  ${kind}: ${failed} of ${n} failed (machine load?)`);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    rpcs[kind] = perCall(rpc0, await rpcCounts(metricsPort), n);
    return { cpuMsPerCall: (cpu.user + cpu.system) / 1000 / n, callsPerS: (n * 1000) / wallMs };
  };

  console.log(`warm-up (${KINDS.join(', ')}, 20 each)`);
  for (const kind of KINDS) await round(kind, 20);
  for (const kind of KINDS) ids[kind] = [];
  const figures: Record<Kind, { cpu: number[]; rate: number[] }> = {
    plain: { cpu: [], rate: [] },
    contract: { cpu: [], rate: [] },
    user: { cpu: [], rate: [] },
    mcw: { cpu: [], rate: [] },
  };
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved, order rotated each round so no kind always runs first.
    const order = KINDS.map((_, i) => KINDS[(i + r) % KINDS.length] as Kind);
    const line: string[] = [];
    for (const kind of order) {
      const f = await round(kind, CALLS);
      figures[kind].cpu.push(f.cpuMsPerCall);
      figures[kind].rate.push(f.callsPerS);
      line.push(`${kind} ${f.cpuMsPerCall.toFixed(2)} ms CPU/call ${f.callsPerS.toFixed(1)} calls/s`);
    }
    const plain = figures.plain.cpu.at(-1);
    const contract = figures.contract.cpu.at(-1);
    const ratio = (k: Kind, to: Kind, base: number | undefined) =>
      base ? [`${k}/${to} ${((figures[k].cpu.at(-1) ?? 0) / base).toFixed(2)}x`] : [];
    const ratios = KINDS.filter((k) => k !== 'plain').flatMap((k) => [
      ...ratio(k, 'plain', plain),
      ...(k !== 'contract' ? ratio(k, 'contract', contract) : []),
    ]);
    console.log(`round ${r + 1}: ${line.join(' | ')}  ${ratios.join(' ')}`);
    for (const kind of KINDS) console.log(`  ${kind} RPCs per call: ${rpcs[kind]}`);
  }
  if (replayArg !== 'no') await replayRounds(client, ids, KINDS);
  worker.shutdown();
  await running;
  await profile.close();
}

/** Replays up to 200 histories of each kind, three rounds interleaved; ms per event of each round. */
async function replayRounds(client: Client, ids: Record<Kind, string[]>, kinds: Kind[]): Promise<void> {
  const histories = new Map<Kind, Awaited<ReturnType<typeof fetchHistories>>>();
  for (const kind of kinds) histories.set(kind, await fetchHistories(client, ids[kind].slice(0, 200)));
  // The same histories on two bundles: webpack's modules as Temporal bundles them by default, and as the product
  // bundles them (ModelRetryPlugin, createModelRetryWorker: our modules concatenated into one).
  const bundles = {
    modules: await bundleLab({ asShipped: false }),
    concat: await bundleLab(),
  };
  for (let r = 0; r < 5; r++) {
    const line: string[] = [];
    for (const [name, bundle] of Object.entries(bundles)) {
      for (const kind of kinds) {
        const hs = histories.get(kind) ?? [];
        const events = hs.reduce((n, h) => n + (h.history.events?.length ?? 0), 0);
        // From the first history's result on: the replay worker's start-up (threads, bundle load) is left out.
        let cpu0: NodeJS.CpuUsage | undefined;
        let first = 0;
        for await (const result of Worker.runReplayHistories({ workflowBundle: { code: bundle.code } }, hs)) {
          if (result.error) throw result.error;
          if (cpu0) continue;
          cpu0 = process.cpuUsage();
          first = hs.find((h) => h.workflowId === result.workflowId)?.history.events?.length ?? 0;
        }
        const cpu = process.cpuUsage(cpu0);
        const ms = (cpu.user + cpu.system) / 1000;
        const counted = Math.max(1, events - first);
        line.push(
          `${name}/${kind} ${(ms / counted).toFixed(3)} ms CPU/event (${(events / hs.length).toFixed(1)} ev/run)`,
        );
      }
    }
    if (r > 0) console.log(`replay round ${r}: ${line.join(' | ')}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
