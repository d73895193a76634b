import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import type { FloorPromptInput, FloorTurnInput } from '../../test/harness/floor/workflows.js';
import type { ServerRetryInput } from '../../test/harness/bundle/server-retry.js';
import type { BenchContext } from '../../test/harness/lab.js';
import type { History } from './history.js';

/** A workflow run to its end: whether it succeeded, and its history. */
export interface FinishedRun {
  workflowId: string;
  ok: boolean;
  history: History;
}

/** Waits for a run's end (success or failure alike) and reads its history. */
export async function finish(handle: WorkflowHandle): Promise<FinishedRun> {
  let ok = true;
  try {
    await handle.result();
  } catch {
    ok = false;
  }
  return { workflowId: handle.workflowId, ok, history: await handle.fetchHistory() };
}

/** Starts `modelCallWorkflow` (through `startModelCall`, as a host does), with the run's client unless given one. */
export function startCall(ctx: BenchContext, taskQueue: string, input: ModelCallInput, client?: Client) {
  return startModelCall(client ?? ctx.client, input, { taskQueue, workflowId: `bench-call-${randomUUID()}` });
}

/** Runs one model call to its end. */
export async function runCall(
  ctx: BenchContext,
  taskQueue: string,
  input: ModelCallInput,
  client?: Client,
): Promise<FinishedRun> {
  return finish(await startCall(ctx, taskQueue, input, client));
}

/** Runs the bench-only `serverRetryWorkflow` (Temporal's own activity retry) to its end. */
export async function runServerRetry(
  ctx: BenchContext,
  taskQueue: string,
  input: ServerRetryInput,
): Promise<FinishedRun> {
  const handle = await ctx.client.workflow.start('serverRetryWorkflow', {
    taskQueue,
    workflowId: `bench-server-retry-${randomUUID()}`,
    args: [input],
  });
  return finish(handle);
}

/** Runs a bench-only floor workflow (`floorPromptWorkflow`, `floorTurnWorkflow`) to its end. */
export async function runFloor(
  ctx: BenchContext,
  taskQueue: string,
  workflow: 'floorPromptWorkflow' | 'floorTurnWorkflow',
  input: FloorPromptInput | FloorTurnInput,
): Promise<FinishedRun> {
  const handle = await ctx.client.workflow.start(workflow, {
    taskQueue,
    workflowId: `bench-floor-${randomUUID()}`,
    args: [input],
  });
  return finish(handle);
}
