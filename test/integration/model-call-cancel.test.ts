import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { fail, hang, ok, slow } from '../../loopback/index.js';
import { readCallHistory } from '../../client/history-reader.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { attemptsQuery, statusQuery } from '../../common/queries.js';
import { finishCall } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';
import { until } from '../harness/until.js';

describe('cancelling a durable model call, and losing its worker', () => {
  const { fx } = useFixture({ worker: false });

  it('ends a wait at once when cancelled, and no further request reaches the provider', async () => {
    const worker = await fx.temporal.startWorker({ deps: { providers: fx.providers } });
    const m = fx.model();
    fx.lp.script(m.id, [fail(502)]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [60_000] } },
      { taskQueue: worker.taskQueue },
    );
    await until('the wait', async () =>
      (await handle.query(statusQuery))?.state === 'waiting' ? true : undefined,
    );
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(fx.lp.requestCount(m.id)).toBe(1);
    const records = await handle.query(attemptsQuery);
    const fromHistory = readCallHistory(await handle.fetchHistory());
    expect(fromHistory.attempts).toEqual(records);
    expect(fromHistory.stopReason).toBe('cancelled');
    // The 60 s wait ended at the cancellation: its timer was cancelled, never fired.
    const types = ((await handle.fetchHistory()).events ?? []).map(eventTypeName);
    expect(types).toContain('TimerCanceled');
    expect(types).not.toContain('TimerFired');
    expect((await handle.query(statusQuery))?.stopReason).toBe('cancelled');
    fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    await worker.stop();
  });

  it('aborts the request in flight when cancelled, and records the attempt as cancelled', async () => {
    const worker = await fx.temporal.startWorker({ deps: { providers: fx.providers } });
    const m = fx.model();
    fx.lp.script(m.id, [hang()]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [10] } },
      { taskQueue: worker.taskQueue },
    );
    await until('the request', async () => (fx.lp.requestCount(m.id) === 1 ? true : undefined));
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    await fx.lp.idle();
    expect(fx.lp.requests(m.id).map((r) => r.outcome)).toEqual(['client-aborted']);
    const records = await handle.query(attemptsQuery);
    expect(records.map((r) => r.outcome)).toEqual(['cancelled']);
    const fromHistory = readCallHistory(await handle.fetchHistory());
    expect(fromHistory.attempts).toEqual(records);
    expect(fromHistory.status).toBe('cancelled');
    fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    await worker.stop();
  });

  it('records a worker shut down mid-request as WorkerLost, never cancelled, and retries elsewhere', async () => {
    const first = await fx.temporal.startWorker({ deps: { providers: fx.providers }, shutdownGraceMs: 300 });
    const m = fx.model();
    fx.lp.script(m.id, [slow(30_000, ok('never')), ok('from the second worker')]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [10] } },
      { taskQueue: first.taskQueue },
    );
    await until('the request', async () => (fx.lp.requestCount(m.id) === 1 ? true : undefined));
    await first.stop();
    const second = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      taskQueue: first.taskQueue,
    });
    const run = await finishCall(fx, handle);
    expect(run.records.map((r) => [r.outcome, r.failure?.class])).toEqual([
      ['failed', 'WorkerLost'],
      ['succeeded', undefined],
    ]);
    expect(run.result?.output.text).toBe('from the second worker');
    expect(fx.lp.requestCount(m.id)).toBe(2);
    await second.stop();
  });
});
