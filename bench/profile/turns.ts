/**
 * Profiles an agent turn's cost against the platform's floor, outside the bench: N turns at once
 * against the loopback provider on one dev server (the calculator asked for `steps - 1` times, then the answer),
 * the client and both workers in this process as in the `turn` benchmark, as (a) the bench's plain
 * `floorTurnWorkflow` (the floor) and (b) `agentTurnWorkflow` started through `startAgentTurn`. Rounds are
 * interleaved, the order swapped each round; the figures are this process's CPU per turn (user + system), turns
 * per second, p50, and the ratios ours/floor within each round. Then one turn of each side is taken apart:
 * events by type, workflow tasks, activities, heartbeats and the bytes of the HTTP requests the provider saw.
 *
 *   tsx bench/profile/turns.ts [turns=60] [rounds=3] [steps=4] [sides=floor,ours] (or contract: the contract's floor)
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile/turns.ts 60 2 4 ours
 *   (with `PROFILE_NO_REPLAY=1`, the replay rounds at the end are skipped: the profile is the live load alone)
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { createModelRetryWorker, workerSlots } from '../../worker/worker.js';
import { ok, toolCall } from '../../loopback/index.js';
import { createFloorActivities } from '../../test/harness/floor/activities.js';
import { cpuSeconds, findDevServerPid } from '../../test/harness/spawn/proc.js';
import { anatomy, replayRounds, serverRequests, threadCpu } from './turn-measures.js';
import type { Side } from './turn-measures.js';
import { startProfile } from './setup.js';

const [turnsArg, roundsArg, stepsArg, sidesArg] = process.argv.slice(2);
const TURNS = Number(turnsArg ?? 60);
const ROUNDS = Number(roundsArg ?? 3);
const STEPS = Number(stepsArg ?? 4);
const SIDES = (sidesArg ?? 'floor,ours').split(',') as Side[];

async function main(): Promise<void> {
  // As the bench's: SQLite in a file (WAL), the bundle as the product builds it.
  const profile = await startProfile({ onDisk: true });
  const { address, namespace, metricsPort, bundleCode, lp, providers, native, client } = profile;
  const floorQueue = `profile-floor-${randomUUID()}`;
  // The contract's floor runs on the floor's worker (its local activity is one of the floor's activities).
  const queues: Record<Side, string> = {
    floor: floorQueue,
    contract: floorQueue,
    ours: `profile-${randomUUID()}`,
  };
  const workers = [
    await createModelRetryWorker({
      connection: native,
      namespace,
      taskQueue: queues.ours,
      workflowBundle: { code: bundleCode },
      shutdownGraceMs: 2000,
      deps: { providers },
    }),
    await Worker.create({
      connection: native,
      namespace,
      taskQueue: queues.floor,
      workflowBundle: { code: bundleCode },
      activities: createFloorActivities(() => providers),
      shutdownGraceTime: 2000,
      ...workerSlots(),
    }),
  ];
  const running = workers.map((w) => w.run());
  let n = 0;
  const serverPid = findDevServerPid(Number(address.split(':').at(-1)));

  const start = (side: Side): { handle: Promise<WorkflowHandle>; model: string } => {
    const id = `turn-${side}-${(n += 1)}`;
    const asks = Array.from({ length: STEPS - 1 }, () => toolCall('calculator', { expression: '6 * 7' }));
    lp.script(id, [...asks, ok('42')]);
    const input = {
      model: `local:${id}`,
      prompt: 'Calculate, then answer.',
      tools: ['calculator'],
      maxSteps: STEPS,
    };
    const workflowId = `profile-turn-${side}-${randomUUID()}`;
    const taskQueue = queues[side];
    const handle =
      side === 'ours'
        ? startAgentTurn(client, input, { taskQueue, workflowId })
        : client.workflow.start(side === 'floor' ? 'floorTurnWorkflow' : 'contractFloorTurnWorkflow', {
            taskQueue,
            workflowId,
            args: [input],
          });
    return { handle, model: id };
  };

  const round = async (side: Side, count: number) => {
    // The round's window on the monotonic clock (µs), to cut a CPU profile (--cpu-prof) to each side's rounds.
    const mark0 = process.hrtime.bigint() / 1000n;
    const threads0 = threadCpu();
    const server0 = serverPid ? cpuSeconds(serverPid) : undefined;
    const rpcs0 = await serverRequests(metricsPort);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const latency: number[] = [];
    const handles: WorkflowHandle[] = [];
    const models: string[] = [];
    await Promise.all(
      Array.from({ length: count }, async () => {
        const began = performance.now();
        const { handle, model } = start(side);
        models.push(model);
        const h = await handle;
        handles.push(h);
        await h.result();
        latency.push(performance.now() - began);
      }),
    );
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (count === TURNS) {
      console.log(`mark ${side} ${mark0} ${process.hrtime.bigint() / 1000n}`);
      const threads = threadCpu();
      const per = [...threads].map(([name, ms]) => [name, (ms - (threads0.get(name) ?? 0)) / count] as const);
      const server1 = serverPid ? cpuSeconds(serverPid) : undefined;
      const dev = server0 !== undefined && server1 !== undefined ? ((server1 - server0) * 1000) / count : NaN;
      const rpcs = await serverRequests(metricsPort);
      const perRpc = [...rpcs]
        .map(([op, c]) => [op, (c - (rpcs0.get(op) ?? 0)) / count] as const)
        .filter(([, c]) => c > 0.05)
        .sort((a, b) => b[1] - a[1]);
      console.log(`  ${side} RPCs/turn: ${perRpc.map(([op, c]) => `${op} ${c.toFixed(1)}`).join(', ')}`);
      console.log(
        `  ${side} CPU/turn by thread: ${per.map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ')}; dev server ${dev.toFixed(1)}`,
      );
    }
    latency.sort((a, b) => a - b);
    return {
      cpuMs: (cpu.user + cpu.system) / 1000 / count,
      rate: (count * 1000) / wallMs,
      p50: latency[Math.floor(latency.length / 2)] ?? 0,
      handle: handles[0] as WorkflowHandle,
      model: models[0] as string,
      ids: handles.map((h) => h.workflowId),
    };
  };

  console.log(`warm-up (${SIDES.join(', ')}, 10 each)`);
  for (const side of SIDES) await round(side, 10);
  const last: Partial<Record<Side, { handle: WorkflowHandle; model: string; ids: string[] }>> = {};
  const sums: Record<Side, { cpu: number; rate: number; p50: number }> = {
    floor: { cpu: 0, rate: 0, p50: 0 },
    ours: { cpu: 0, rate: 0, p50: 0 },
    contract: { cpu: 0, rate: 0, p50: 0 },
  };
  // The measured rounds' window on the monotonic clock (µs), to cut CPU profiles to it.
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? SIDES : [...SIDES].reverse();
    const figures: Partial<Record<Side, Awaited<ReturnType<typeof round>>>> = {};
    for (const side of order) {
      const f = await round(side, TURNS);
      figures[side] = f;
      last[side] = f;
      sums[side].cpu += f.cpuMs;
      sums[side].rate += f.rate;
      sums[side].p50 += f.p50;
    }
    const line = order.map((s) => {
      const f = figures[s];
      return `${s} ${f?.cpuMs.toFixed(1)} ms CPU/turn ${f?.rate.toFixed(2)} turns/s p50 ${f?.p50.toFixed(0)} ms`;
    });
    const { floor, ours } = figures;
    const ratios =
      floor && ours
        ? `  ours/floor CPU ${(ours.cpuMs / floor.cpuMs).toFixed(2)}x rate ${(ours.rate / floor.rate).toFixed(2)}x p50 ${(ours.p50 / floor.p50).toFixed(2)}x`
        : '';
    console.log(`round ${r + 1}: ${line.join(' | ')}${ratios}`);
  }
  if (sums.floor.cpu > 0 && sums.ours.cpu > 0) {
    console.log(
      `all rounds: ours/floor CPU ${(sums.ours.cpu / sums.floor.cpu).toFixed(2)}x rate ` +
        `${(sums.ours.rate / sums.floor.rate).toFixed(2)}x p50 ${(sums.ours.p50 / sums.floor.p50).toFixed(2)}x`,
    );
  }
  for (const side of SIDES) {
    const one = last[side];
    if (one) await anatomy(side, one.handle, lp.requests(one.model));
  }
  if (process.env.PROFILE_NO_REPLAY === undefined)
    await replayRounds(client, bundleCode, new Map(SIDES.map((side) => [side, last[side]?.ids ?? []])));
  for (const w of workers) w.shutdown();
  await Promise.all(running);
  await profile.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
