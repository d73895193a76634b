import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, ok, rateLimited, slow } from '../../loopback/index.js';
import { readCallHistory } from '../../client/history-reader.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { attemptsQuery, statusQuery } from '../../common/queries.js';
import { expectNoSecrets, modelCallFixture } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * A host cancels a call while its attempt is in flight, and the attempt then ends on its own (an answer, a 400,
 * a rate limit whose action is an immediate advance): the run still ends CANCELED, the attempt's record keeps
 * how it ended, and nothing starts after it. To make "ends on its own after the cancel" certain rather than a
 * race, the worker heartbeats every 60 s (`heartbeatThrottleMs`; its attempts' heartbeat timeout is 3 times that),
 * so the attempt learns of the cancel only after the provider's answer.
 */
describe('a call cancelled while its attempt is in flight', () => {
  let fx: ModelCallFixture;
  let deaf: TestWorker;
  beforeAll(async () => {
    fx = await modelCallFixture();
    deaf = await fx.temporal.startWorker({ deps: { providers: fx.providers }, heartbeatThrottleMs: 60_000 });
  });
  afterAll(async () => {
    await deaf?.stop();
    if (fx) await replayAll(fx.histories);
    await fx?.close();
  });

  /** Starts the call, cancels it once its first request is in flight and the cancel is in history, and waits. */
  async function cancelInFlight(input: ModelCallInput, worker: TestWorker, modelId: string, delayMs = 0) {
    const handle = await startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue });
    await fx.lp.waitForRequests(1, modelId);
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    await handle.cancel();
    await until(async () => (await eventTypes(handle)).includes('ActivityTaskCancelRequested'));
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const records = await handle.query(attemptsQuery);
    const history = await handle.fetchHistory();
    const fromHistory = readCallHistory(history);
    expect(fromHistory.attempts).toEqual(records);
    expect(fromHistory.stopReason).toBe('cancelled');
    expect((await handle.query(statusQuery))?.stopReason).toBe('cancelled');
    expectNoSecrets(history, handle.workflowId);
    fx.histories.push({ workflowId: handle.workflowId, history });
    return { handle, records, types: await eventTypes(handle) };
  }

  it('ends CANCELED when a 400 arrives after the cancel, the record keeping its failure', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [slow(3000, fail(400))]);
    const { records, types } = await cancelInFlight({ model: m.name, prompt: 'hi' }, deaf, m.id);
    // The attempt really ended on its own after the cancel was requested.
    expect(types.indexOf('ActivityTaskFailed')).toBeGreaterThan(types.indexOf('ActivityTaskCancelRequested'));
    expect(records.map((r) => [r.outcome, r.failure?.class, r.failure?.action])).toEqual([
      ['failed', 'BadRequest', undefined],
    ]);
  });

  it('ends CANCELED when the answer arrives after the cancel, and does not return it', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [slow(3000, ok('too late'))]);
    const { records, types } = await cancelInFlight({ model: m.name, prompt: 'hi' }, deaf, m.id);
    expect(types.indexOf('ActivityTaskCompleted')).toBeGreaterThan(
      types.indexOf('ActivityTaskCancelRequested'),
    );
    expect(records.map((r) => r.outcome)).toEqual(['succeeded']);
  });

  it('starts nothing after the cancel, not even an immediate advance, and pushes no phantom record', async () => {
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [slow(3000, rateLimited())]);
    fx.lp.script(b.id, [ok('never asked')]);
    const input = { model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } };
    const { records } = await cancelInFlight(input, deaf, a.id);
    expect(records.map((r) => [r.model, r.outcome, r.failure?.class, r.retryInMs])).toEqual([
      [a.name, 'failed', 'RateLimited', undefined],
    ]);
    expect(fx.lp.requestCount(b.id)).toBe(0);
  });

  it('aborts the request within one heartbeat (5 s by default) of the cancel, wherever the cancel falls', async () => {
    // Each provider answers 400 one heartbeat and 0.9 s after the cancel; the cancels fall at moments spread over
    // a heartbeat of the request (a cancel that just misses one heartbeat waits for the next). Every request must
    // be aborted first.
    const worker = await fx.temporal.startWorker({ deps: { providers: fx.providers } });
    const runs = await Promise.all(
      [300, 1550, 2800, 4050, 5300].map(async (cancelAtMs) => {
        const m = fx.model();
        fx.lp.script(m.id, [slow(cancelAtMs + 5000 + 900, fail(400))]);
        return { m, ...(await cancelInFlight({ model: m.name, prompt: 'hi' }, worker, m.id, cancelAtMs)) };
      }),
    );
    await fx.lp.idle();
    for (const { m, records } of runs) {
      expect(fx.lp.requests(m.id).map((r) => r.outcome)).toEqual(['client-aborted']);
      expect(records.map((r) => r.outcome)).toEqual(['cancelled']);
    }
    await worker.stop();
  });
});

async function eventTypes(handle: WorkflowHandle): Promise<string[]> {
  return ((await handle.fetchHistory()).events ?? []).map(eventTypeName);
}

async function until(probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error('timed out waiting for the cancel to reach the history');
    await new Promise((r) => setTimeout(r, 50));
  }
}
