import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { ok, toolCall } from '../../loopback/index.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { countTypes } from '../lib/history.js';
import { cpuSeconds, findDevServerPid } from '../../test/harness/spawn/proc.js';

/**
 * Which side of the comparison a load runs: model-retry's `agentTurnWorkflow`, the floor's plain workflow, or the
 * contract's floor (the plain workflow plus the marker and the stop's search attributes the contract asks for).
 */
export type Side = 'model-retry' | 'floor' | 'contract-floor';

/** One load: `turns` agent turns started at once, each `modelCalls` model calls (a tool call between two). */
export interface TurnLoadSpec {
  turns: number;
  modelCalls: number;
  taskQueue: string;
  side: Side;
  timeoutMs: number;
}

/** What one load did. */
export interface TurnLoadFigures {
  turns: number;
  /** From the first start to the last result, ms. */
  completionMs: number;
  turnsPerSecond: number;
  /** Each turn's start-to-result time, ms (from the start request to its result). */
  latencyMs: number[];
  /** CPU ms per turn: this process (client, worker, loopback provider) and the dev server. */
  cpuPerTurnMs: { process: number; devServer?: number };
  /** Activities and events of one turn's history (the first's). */
  activities: number;
  events: number;
}

/**
 * Runs `spec.turns` turns at once on the given worker's task queue and waits for every result. The loopback
 * provider asks for the calculator `modelCalls - 1` times, then answers, so both sides run the same requests and
 * tools. CPU is read from /proc (the dev server) and `process.cpuUsage` (this process) around the load.
 */
export async function runTurnLoad(ctx: BenchContext, spec: TurnLoadSpec): Promise<TurnLoadFigures> {
  const models = Array.from({ length: spec.turns }, () => {
    const model = ctx.model(`turn-${spec.side === 'model-retry' ? 'ours' : spec.side}`);
    const asks = Array.from({ length: spec.modelCalls - 1 }, () =>
      toolCall('calculator', { expression: '6 * 7' }),
    );
    ctx.lp.script(model.id, [...asks, ok('42')]);
    return model.name;
  });
  const serverPid = findDevServerPid(Number(ctx.address.split(':').at(-1)));
  const server0 = serverPid ? cpuSeconds(serverPid) : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const latencyMs: number[] = [];
  const handles: WorkflowHandle[] = [];
  let lastAt = t0;
  const runs = models.map(async (model) => {
    const started = performance.now();
    const handle = await start(ctx, spec, model);
    handles.push(handle);
    await handle.result();
    lastAt = performance.now();
    latencyMs.push(lastAt - started);
  });
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`turn load (${spec.side}) not done in ${spec.timeoutMs} ms`)),
      spec.timeoutMs,
    );
  });
  try {
    await Promise.race([Promise.all(runs), bound]);
  } finally {
    clearTimeout(timer);
  }
  const cpu = process.cpuUsage(cpu0);
  const server1 = serverPid ? cpuSeconds(serverPid) : undefined;
  const completionMs = lastAt - t0;
  const history = await (handles[0] as WorkflowHandle).fetchHistory();
  const types = countTypes(history);
  return {
    turns: spec.turns,
    completionMs,
    turnsPerSecond: spec.turns / (completionMs / 1000),
    latencyMs,
    cpuPerTurnMs: {
      process: (cpu.user + cpu.system) / 1000 / spec.turns,
      ...(server0 !== undefined && server1 !== undefined
        ? { devServer: ((server1 - server0) * 1000) / spec.turns }
        : {}),
    },
    activities: types.get('ActivityTaskScheduled') ?? 0,
    events: history.events?.length ?? 0,
  };
}

function start(ctx: BenchContext, spec: TurnLoadSpec, model: string): Promise<WorkflowHandle> {
  const prompt = 'Calculate, then answer.';
  const workflowId = `bench-turn-${spec.side === 'model-retry' ? '' : `${spec.side}-`}${randomUUID()}`;
  if (spec.side === 'model-retry') {
    return startAgentTurn(
      ctx.client,
      { model, prompt, tools: ['calculator'], maxSteps: spec.modelCalls },
      { taskQueue: spec.taskQueue, workflowId },
    );
  }
  const type = spec.side === 'floor' ? 'floorTurnWorkflow' : 'contractFloorTurnWorkflow';
  return ctx.client.workflow.start(type, {
    taskQueue: spec.taskQueue,
    workflowId,
    args: [{ model, prompt, tools: ['calculator'], maxSteps: spec.modelCalls }],
  });
}
