import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { eventTypeName } from '../../client/history-format.js';
import type { RunSummary } from '../../client/list-runs.js';
import { fail, ok, toolCall } from '../../loopback/index.js';
import {
  ATTEMPT_COUNT,
  CLASSES_MET,
  LAST_FAILURE_CLASS,
  MODELS_TRIED,
  STOP_REASON,
} from '../../common/search-attributes.js';
import { turnStatusQuery } from '../../common/queries.js';
import { runTurn } from '../harness/agent-turn.js';
import { until } from '../harness/until.js';
import type { TurnRun } from '../harness/agent-turn.js';
import { runCli } from '../harness/cli.js';
import { useFixture } from '../harness/fixture.js';

/** The search attributes a turn's (last) run carries. */
async function attributes(run: Pick<TurnRun, 'handle'>) {
  const sa = (await run.handle.describe()).typedSearchAttributes;
  return {
    stopReason: sa.get(STOP_REASON),
    attempts: sa.get(ATTEMPT_COUNT),
    models: sa.get(MODELS_TRIED),
    lastFailure: sa.get(LAST_FAILURE_CLASS),
  };
}

/** How many `UpsertWorkflowSearchAttributes` events a run has. */
async function upserts(run: Pick<TurnRun, 'handle'>): Promise<number> {
  const events = (await run.handle.fetchHistory()).events ?? [];
  return events.map(eventTypeName).filter((t) => t === 'UpsertWorkflowSearchAttributes').length;
}

describe('findable turns: an agent turn sets the search attributes once when it stops, and `list` shows it', () => {
  const { fx, worker } = useFixture();

  it('sets them over every call of the turn, and `list` finds the turn by its stop reason', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '6 * 7' }), fail(502), ok('It is 42.')]);
    const answered = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
      retry: { waits: [10] },
    });
    expect(answered.result?.stopReason).toBe('succeeded');
    expect(await attributes(answered)).toEqual({
      stopReason: 'succeeded',
      attempts: 3,
      models: [m.name],
      lastFailure: 'ServerError',
    });
    // One when the 502 was first met (the class, while the turn ran), one when it stopped.
    expect(await upserts(answered)).toBe(2);

    const n = fx.model();
    fx.lp.script(n.id, [toolCall('calculator', { expression: '1 + 1' })]);
    const capped = await runTurn(fx, worker, {
      model: n.name,
      prompt: 'Add',
      tools: ['calculator'],
      maxSteps: 1,
    });
    expect(capped.result?.stopReason).toBe('max-steps');
    expect(await attributes(capped)).toEqual({
      stopReason: 'max-steps',
      attempts: 1,
      models: [n.name],
      lastFailure: undefined,
    });

    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    };
    const scope = `TaskQueue = '${worker.taskQueue}'`;
    const list = async (query: string) => {
      const { code, stdout, stderr } = await runCli(['list', '--query', query, '--json'], env);
      expect(code, stderr).toBe(0);
      return JSON.parse(stdout) as RunSummary[];
    };
    // Visibility is eventually consistent: wait until both turns are listed with their attributes.
    await until(
      'both turns in visibility',
      async () => {
        const ids = (await list(`${scope} AND ModelRetryStopReason IS NOT NULL`)).map((r) => r.workflowId);
        return ids.includes(answered.handle.workflowId) && ids.includes(capped.handle.workflowId)
          ? true
          : undefined;
      },
      30_000,
    );
    const found = await list(`${scope} AND ModelRetryStopReason = 'max-steps'`);
    expect(found.map((r) => r.workflowId)).toEqual([capped.handle.workflowId]);
    expect(found[0]).toMatchObject({
      workflowType: 'agentTurnWorkflow',
      status: 'succeeded',
      stopReason: 'max-steps',
      attempts: 1,
      models: [n.name],
      taskQueue: worker.taskQueue,
    });
  });

  it('sets them when the turn is cancelled during a wait (stop reason cancelled)', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '2 + 2' }), fail(502)]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'Add', tools: ['calculator'], retry: { waits: [60_000] } },
      { taskQueue: worker.taskQueue },
    );
    await until('the wait', async () =>
      (await handle.query(turnStatusQuery)).phase === 'waiting' ? true : undefined,
    );
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(await attributes({ handle })).toEqual({
      stopReason: 'cancelled',
      attempts: 2,
      models: [m.name],
      lastFailure: 'ServerError',
    });
    expect(await upserts({ handle })).toBe(2);
    fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
  });

  it('sets them when a model call stops the turn (stop reason of the call)', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '3 + 3' }), fail(400)]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Add',
      tools: ['calculator'],
      retry: { waits: [10] },
    });
    expect(run.failure).toBeDefined();
    expect(await attributes(run)).toEqual({
      stopReason: 'non-retryable',
      attempts: 2,
      models: [m.name],
      lastFailure: 'BadRequest',
    });
  });

  it('a turn still waiting after a class it met is found by `list --class` while it runs, one upsert per new class', async () => {
    const m = fx.model();
    // Its second model call meets two ServerErrors (one class, two attempts), then waits long: it is running when
    // it is listed.
    fx.lp.script(m.id, [toolCall('calculator', { expression: '4 + 4' }), fail(502), fail(503)]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'Add', tools: ['calculator'], retry: { waits: [10, 600_000] } },
      { taskQueue: worker.taskQueue },
    );
    try {
      await until('the long wait', async () => {
        const status = await handle.query(turnStatusQuery);
        return status.phase === 'waiting' && fx.lp.requestCount(m.id) === 3 ? true : undefined;
      });
      const env = {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      };
      const scope = `TaskQueue = '${worker.taskQueue}' AND WorkflowId = '${handle.workflowId}'`;
      // Visibility is eventually consistent: wait until the running turn is listed by its class.
      const found = await until(
        'the running turn listed by its class',
        async () => {
          const r = await runCli(['list', '--query', scope, '--json', '--class', 'ServerError'], env);
          expect(r.code, r.stderr).toBe(0);
          const runs = JSON.parse(r.stdout) as RunSummary[];
          return runs.length === 1 ? runs : undefined;
        },
        30_000,
      );
      expect(found.map((r) => [r.workflowId, r.workflowType, r.status])).toEqual([
        [handle.workflowId, 'agentTurnWorkflow', 'running'],
      ]);
      expect((await handle.describe()).typedSearchAttributes.get(CLASSES_MET)).toEqual(['ServerError']);
      expect(await upserts({ handle })).toBe(1);
    } finally {
      await handle.cancel();
      await handle.result().catch(() => undefined);
    }
  });
});
