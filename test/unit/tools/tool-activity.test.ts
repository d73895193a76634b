import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../activities/tools/tool-activity.js';
import { ToolRegistry } from '../../../activities/tools/index.js';
import type { ToolCallInput, ToolCallResult } from '../../../common/tools.js';

const registry = new ToolRegistry();
const { runTool } = createToolActivities({ registry: () => registry });
const call = (name: string, args: unknown): ToolCallInput => ({
  workflowId: 'wf-test',
  activityId: 'c1.tool.1',
  toolCallId: 'call_1',
  name,
  args: JSON.stringify(args),
});
const environment = () => new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });

describe('the tool activity', () => {
  it('makes no heartbeat for a tool that ends at once (each is an RPC and a write at the server)', async () => {
    const env = environment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const result = (await env.run(runTool, call('calculator', { expression: '6 * 7' }))) as ToolCallResult;
    expect(result.content).toBe('42');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(beats).toEqual([]);
  });

  it("heartbeats at the worker's cadence while a longer tool runs (its cancellation comes with the answer), with no details", async () => {
    const { runTool: beating } = createToolActivities({ registry: () => registry, heartbeatIntervalMs: 250 });
    const env = environment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const done = env.run(beating, call('sleep_ms', { ms: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(beats.length).toBeGreaterThanOrEqual(1);
    // No one reads a tool's heartbeat details: each beat would only encode (and encrypt) them for nothing.
    expect(beats.every((b) => b === undefined)).toBe(true);
    env.cancel();
    await expect(done).rejects.toBeInstanceOf(CancelledFailure);
  });
});
