import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { always, fail, ok, rateLimited, toolCall } from '../../loopback/index.js';
import { readTurnHistory, startAgentTurn } from '../../client/agent-turn-client.js';
import { attemptsQuery } from '../../common/queries.js';
import { extendDeadlineUpdate, turnStatusQuery } from '../../common/queries.js';
import { story } from '../harness/model-call.js';
import { finishTurn, runTurn, toolResults } from '../harness/agent-turn.js';
import { until } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';
import { readWholeStream, streamTrace } from '../harness/stream-trace.js';

describe('an agent turn under one deadline, controlled while it runs', () => {
  const { fx, worker } = useFixture();

  it('rides out a provider outage in the middle of the turn with durable waits', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '2^10' }), fail(502), fail(503), ok('1024')]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'What is 2 to the 10th?',
      tools: ['calculator'],
      retry: { waits: [50, 100] },
      deadlineInMs: 60_000,
      reserveMs: 5000,
    });
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.result?.text).toBe('1024');
    expect(run.result?.steps.map((s) => s.callId)).toEqual(['c1', 'c2']);
    expect(story(run.result?.steps[1]?.attempts ?? [])).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 50 },
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 100 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(run.records.map((r) => r.modelCallId)).toEqual(['c1.1', 'c2.1', 'c2.2', 'c2.3']);
    expect(run.result?.billed.attempts).toBe(4);
  });

  it('keeps a backend that asked to retry after 30 s out of the next model call of the turn too', async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [rateLimited(30)]);
    fx.lp.script(b.id, [toolCall('calculator', { expression: '1+2' }), ok('3')]);
    const run = await runTurn(fx, worker, {
      model: [a.name, b.name],
      prompt: 'Add',
      tools: ['calculator'],
      retry: { waits: [50] },
    });
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.records.map((r) => [r.modelCallId, r.backend, r.outcome])).toEqual([
      ['c1.1', 0, 'failed'],
      ['c1.2', 1, 'succeeded'],
      ['c2.1', 1, 'succeeded'],
    ]);
    expect(fx.lp.requestCount(a.id)).toBe(1);
  });

  it('stops with `deadline` in the middle of the turn, the reserve left, and returns what it has', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '3*3' }), always(fail(502))]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Square three',
      tools: ['calculator'],
      retry: { waits: [300], minAttemptMs: 500 },
      deadlineInMs: 7000,
      reserveMs: 2000,
    });
    expect(run.result?.stopReason).toBe('deadline');
    expect(run.result?.messages.map((msg) => msg.role)).toEqual(['assistant', 'tool']);
    expect(toolResults(run.result?.messages ?? []).map((r) => r.output)).toEqual([
      { type: 'text', value: '9' },
    ]);
    expect(run.result?.steps.map((s) => s.stopReason)).toEqual([undefined, 'deadline']);
    expect(run.result?.lastDecision?.reason).toBe('deadline');
    expect(run.records.length).toBeGreaterThan(2);
    const description = await run.handle.describe();
    const spendUntil = description.startTime.getTime() + 7000 - 2000;
    for (const r of run.records) expect(Date.parse(r.endedAt ?? '')).toBeLessThanOrEqual(spendUntil);
    expect(description.closeTime?.getTime()).toBeLessThanOrEqual(spendUntil);
    expect(run.result?.deadline).toBe(new Date(description.startTime.getTime() + 7000).toISOString());
    expect(run.status).toMatchObject({ phase: 'stopped', stopReason: 'deadline' });
  });

  it('ends a wait at once when cancelled, and the status said which backend it waited for', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('get_time'), fail(502)]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'Time?', tools: ['get_time'], retry: { waits: [60_000] } },
      { taskQueue: worker.taskQueue },
    );
    const waiting = await until('the wait', async () => {
      const s = await handle.query(turnStatusQuery);
      return s.phase === 'waiting' ? s : undefined;
    });
    expect(waiting).toMatchObject({ step: 2, callId: 'c2', attempt: 1, backend: 0, model: m.name });
    expect(Date.parse(waiting.waitingUntil ?? '')).toBeGreaterThan(Date.now() + 30_000);
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(fx.lp.requestCount(m.id)).toBe(2);
    const history = await readTurnHistory(fx.temporal.client, handle.workflowId);
    expect(history.attempts).toEqual(await handle.query(attemptsQuery));
    expect(history.stopReason).toBe('cancelled');
    expect((await handle.query(turnStatusQuery)).stopReason).toBe('cancelled');
    fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
  });

  it('cancels a tool in flight: the tool stops and the turn ends CANCELED', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('sleep_ms', { ms: 120_000 })]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      // Streamed: a subscriber after the end reads the call's stop as it was, `succeeded` (its answer was handled
      // before the cancellation was requested), though the run ended CANCELED.
      { model: m.name, prompt: 'Nap', tools: ['sleep_ms'], stream: { batchMs: 10 } },
      { taskQueue: worker.taskQueue },
    );
    const running = await until('the tool', async () => {
      const s = await handle.query(turnStatusQuery);
      return s.phase === 'tools' ? s : undefined;
    });
    expect(running.tools).toEqual([{ name: 'sleep_ms', activityId: 'c1.tool.1', outcome: 'running' }]);
    await until('the tool to start', async () => {
      const h = await handle.fetchHistory();
      return (h.events ?? []).some((e) => e.activityTaskStartedEventAttributes) ? true : undefined;
    });
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const history = await handle.fetchHistory();
    // The tool acknowledged the cancellation (WAIT_CANCELLATION_COMPLETED): it stopped, it was not abandoned.
    const canceled = (history.events ?? []).find((e) => e.activityTaskCanceledEventAttributes);
    expect(canceled).toBeDefined();
    const status = await handle.query(turnStatusQuery);
    expect(status.stopReason).toBe('cancelled');
    const late = await readWholeStream(fx.temporal.client, handle.workflowId);
    expect(streamTrace(late)).toEqual(['attempt c1.1', 'stop c1 succeeded']);
    fx.histories.push({ workflowId: handle.workflowId, history });
  });

  const napTurn = (id: string) => ({
    model: id,
    prompt: 'Nap, then answer',
    tools: ['sleep_ms'],
    retry: { waits: [100], minAttemptMs: 5000 },
    deadlineInMs: 10_000,
    reserveMs: 1000,
  });

  it('stops at the deadline when a tool leaves no room for the next model call', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('sleep_ms', { ms: 4000 })]);
    const run = await runTurn(fx, worker, napTurn(m.name));
    expect(run.result?.stopReason).toBe('deadline');
    expect(run.result?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', output: { type: 'text', value: 'slept 4000 ms' } }],
    });
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('finishes that same turn when the host extends its deadline while the tool runs', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('sleep_ms', { ms: 4000 }), ok('rested')]);
    const handle = await startAgentTurn(fx.temporal.client, napTurn(m.name), { taskQueue: worker.taskQueue });
    const before = await until('the tool', async () => {
      const s = await handle.query(turnStatusQuery);
      return s.phase === 'tools' ? s : undefined;
    });
    await expect(
      handle.executeUpdate(extendDeadlineUpdate, { args: [{ deadline: '2000-01-01T00:00:00Z' }] }),
    ).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    // Past what Temporal's durations and dates hold: refused by name, and the turn goes on.
    for (const far of [{ byMs: 1e17 }, { deadline: '9999-12-31T00:00:00Z' }]) {
      const refused = await handle.executeUpdate(extendDeadlineUpdate, { args: [far] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toMatch(
        /at most .* ms \(100 years\)/,
      );
    }
    const extended = await handle.executeUpdate(extendDeadlineUpdate, { args: [{ byMs: 60_000 }] });
    expect(Date.parse(extended.deadline)).toBe(Date.parse(before.deadline ?? '') + 60_000);
    const run = await finishTurn(fx, handle);
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.result?.text).toBe('rested');
    expect(run.result?.deadline).toBe(extended.deadline);
  });
});
