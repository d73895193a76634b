import { Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, inject, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { listRuns } from '../../client/list-runs.js';
import { InvalidModelCallInputError } from '../../common/input-error.js';
import { InvalidAgentTurnInputError } from '../../common/turn-input.js';
import { TENANT } from '../../common/search-attributes.js';
import { fail, ok, toolCall } from '../../loopback/index.js';
import { finishCall } from '../harness/model-call.js';
import { finishTurn } from '../harness/agent-turn.js';
import { runCli } from '../harness/cli.js';
import { until } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';
import { createTestNamespace } from '../harness/namespace.js';

type Event = temporal.api.history.v1.IHistoryEvent;

/** Each scheduled activity of a history: its type and the fairness key and weight it was scheduled with. */
function scheduled(events: readonly Event[]): { type: string; key?: string; weight?: number }[] {
  return events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a) return [];
    const { fairnessKey, fairnessWeight } = a.priority ?? {};
    return [
      {
        type: a.activityType?.name ?? '',
        ...(fairnessKey ? { key: fairnessKey } : {}),
        ...(fairnessWeight ? { weight: fairnessWeight } : {}),
      },
    ];
  });
}

/** The fairness key and weight a run was started with (its first event). */
function started(events: readonly Event[]): { key?: string; weight?: number } {
  const { fairnessKey, fairnessWeight } = events[0]?.workflowExecutionStartedEventAttributes?.priority ?? {};
  return {
    ...(fairnessKey ? { key: fairnessKey } : {}),
    ...(fairnessWeight ? { weight: fairnessWeight } : {}),
  };
}

describe("a tenant's calls and turns: found by ModelRetryTenant, and every task carries the tenant's fairness key", () => {
  const { fx, worker, env } = useFixture();

  it('a call started with tenant acme is listed by ModelRetryTenant, and it and each attempt carry the key', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('hello')]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [10] }, tenant: 'acme' },
      { taskQueue: worker.taskQueue, fairnessWeight: 2 },
    );
    const run = await finishCall(fx, handle);
    expect(run.result?.output.text).toBe('hello');
    const events = run.history.events ?? [];
    expect(started(events)).toEqual({ key: 'acme', weight: 2 });
    // The worker has no tenants file: the attempts carry the key, and take the run's weight from Temporal.
    expect(scheduled(events)).toEqual([
      { type: 'modelRequest', key: 'acme' },
      { type: 'modelRequest', key: 'acme' },
    ]);
    expect((await handle.describe()).typedSearchAttributes.get(TENANT)).toBe('acme');
    const query = `TaskQueue = '${worker.taskQueue}' AND ModelRetryTenant = 'acme'`;
    const listed = await until(
      'the call listed by its tenant',
      async () => {
        const runs = await listRuns(fx.temporal.client, query, 10);
        return runs.some((r) => r.workflowId === handle.workflowId) ? runs : undefined;
      },
      30_000,
    );
    expect(listed.map((r) => [r.workflowId, r.tenant])).toEqual([[handle.workflowId, 'acme']]);
  });

  it('a call without a tenant is started and scheduled as before: no key, no search attribute', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('plain')]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi' },
      { taskQueue: worker.taskQueue },
    );
    const run = await finishCall(fx, handle);
    const events = run.history.events ?? [];
    expect(started(events)).toEqual({});
    expect(scheduled(events)).toEqual([{ type: 'modelRequest' }]);
    expect((await handle.describe()).typedSearchAttributes.get(TENANT)).toBeUndefined();
  });

  it("a turn's model calls and tools carry the turn's tenant", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '6 * 7' }), ok('It is 42.')]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'What is 6 times 7?', tools: ['calculator'], tenant: 'acme' },
      { taskQueue: worker.taskQueue },
    );
    const run = await finishTurn(fx, handle);
    expect(run.result?.stopReason).toBe('succeeded');
    expect((await handle.describe()).typedSearchAttributes.get(TENANT)).toBe('acme');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(started(events)).toEqual({ key: 'acme' });
    const own = scheduled(events).filter((a) => a.type === 'modelRequest' || a.type === 'runTool');
    expect(own).toEqual([
      { type: 'modelRequest', key: 'acme' },
      { type: 'runTool', key: 'acme' },
      { type: 'modelRequest', key: 'acme' },
    ]);
  });

  it('a call or turn with a bad tenant is refused before anything starts, naming `tenant`', async () => {
    const m = fx.model();
    const workflowId = `tenant-refused-${Date.now()}`;
    const call = startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', tenant: '*' },
      { taskQueue: worker.taskQueue, workflowId },
    );
    await expect(call).rejects.toThrow(InvalidModelCallInputError);
    await expect(call).rejects.toThrow(/^`tenant`: `\*` is the tenants file's entry/);
    const turn = startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', tenant: 'x'.repeat(65) },
      { taskQueue: worker.taskQueue, workflowId },
    );
    await expect(turn).rejects.toThrow(InvalidAgentTurnInputError);
    await expect(turn).rejects.toThrow(/^`tenant`: is 65 UTF-8 bytes long/);
    await expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(
      WorkflowNotFoundError,
    );
    const cli = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--no-retry', '--tenant', ''],
      env,
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('`--tenant`: is empty');
  });

  it('`model-retry call --tenant acme` starts the call with its search attribute and key', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('from the CLI')]);
    const workflowId = `tenant-cli-${Date.now()}`;
    const cli = await runCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'hi',
        '--no-retry',
        '--tenant',
        'acme',
        '--workflow-id',
        workflowId,
      ],
      env,
    );
    expect(cli.code, cli.stderr).toBe(0);
    const handle = fx.temporal.client.workflow.getHandle(workflowId);
    expect((await handle.describe()).typedSearchAttributes.get(TENANT)).toBe('acme');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(started(events)).toEqual({ key: 'acme' });
    expect(scheduled(events)).toEqual([{ type: 'modelRequest', key: 'acme' }]);
  });

  it('on a namespace without ModelRetryTenant registered, a tenant call starts all the same, keeping its key', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const { client } = await createTestNamespace(connection, 'no-tenant-attribute');
      const handle = await startModelCall(
        client,
        { model: fx.model().name, prompt: 'hi', tenant: 'acme' },
        { taskQueue: `nobody-${Date.now()}` },
      );
      expect((await handle.describe()).typedSearchAttributes.get(TENANT)).toBeUndefined();
      expect(started((await handle.fetchHistory()).events ?? [])).toEqual({ key: 'acme' });
      await handle.terminate('nothing polls its task queue');
    } finally {
      await connection.close();
    }
  });
});
