import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { decodePayloadWire, workflowStreamPublishSignal } from '@temporalio/workflow-streams/workflow';
import type { PublishInput } from '@temporalio/workflow-streams/workflow';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import type { Activities } from '../../activities/index.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import { StreamDeliveries } from '../../client/history-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { AttemptRecord } from '../../common/call.js';
import { DELTA_TOPIC } from '../../common/stream.js';
import type { StreamDelta } from '../../common/stream.js';
import { ok } from '../../loopback/index.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { bundleAiSdkWorkflows, finishAiSdkRun } from '../harness/ai-sdk.js';
import { finishTurn } from '../harness/agent-turn.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';

type History = temporal.api.history.v1.IHistory;

const WORDS = ['The ', 'quick ', 'brown ', 'fox.'];
const ANSWER = WORDS.join('');
const GHOSTS = ['GHOST ', 'STALE ', 'DELTAS '];

/**
 * `modelRequest` whose first attempt the workflow gives up on while it still runs: it never heartbeats (a worker
 * cut off from the server), so its heartbeat timeout fires and the workflow retries; once the retry is in flight
 * it sends its request and streams its answer, every batch signalled into the still running workflow; the retry
 * sends only after that.
 */
function staleFirstAttempt(real: Activities['modelRequest']): Activities['modelRequest'] {
  let retryStarted: () => void = () => undefined;
  const retrying = new Promise<void>((resolve) => (retryStarted = resolve));
  let staleEnded: () => void = () => undefined;
  const staleDone = new Promise<void>((resolve) => (staleEnded = resolve));
  return async (input) => {
    if (input.attempt === 1) {
      Object.defineProperty(Context.current(), 'heartbeat', { value: () => undefined });
      await retrying;
      try {
        return await real(input);
      } finally {
        staleEnded();
      }
    }
    retryStarted();
    await staleDone;
    return real(input);
  };
}

/** Every delta the history's publish signals carried, whether the workflow let it in or not. */
function signalledDeltas(history: History): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (const event of history.events ?? []) {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== workflowStreamPublishSignal.name) continue;
    const input = defaultPayloadConverter.fromPayload<PublishInput>(
      signal.input?.payloads?.[0] as Parameters<typeof defaultPayloadConverter.fromPayload>[0],
    );
    for (const item of input.items)
      if (item.topic === DELTA_TOPIC)
        out.push(defaultPayloadConverter.fromPayload<StreamDelta>(decodePayloadWire(item.data)));
  }
  return out;
}

/** Reads a workflow's stream from outside until it ends: the text of its deltas. */
function subscribe(client: Client, workflowId: string): Promise<string> {
  return (async () => {
    let text = '';
    for await (const item of subscribeCallStream(client, workflowId, { pollCooldownMs: 20 }))
      if (item.kind === 'delta') text += item.delta.text;
    return text;
  })();
}

/**
 * What every path must show: the stale attempt did publish (its signals are in history), yet none of its deltas
 * reached the stream's subscriber, the attempt records or the history reader's deliveries.
 */
function expectRefused(history: History, subscribed: string, records: AttemptRecord[]): void {
  const stale = signalledDeltas(history).filter((d) => d.modelCallId === 'c1.1');
  expect(stale.map((d) => d.text).join('')).toBe(GHOSTS.join(''));
  expect(subscribed).toBe(ANSWER);
  expect(records.map((r) => [r.modelCallId, r.outcome, r.streamedDeltas])).toEqual([
    ['c1.1', 'failed', 0],
    ['c1.2', 'succeeded', expect.any(Number)],
  ]);
  expect(records[0]?.failure?.class).toBe('WorkerLost');
  const delivered = new StreamDeliveries(history.events ?? []).all();
  expect(delivered.filter((d) => d.modelCallId === 'c1.1')).toEqual([]);
  expect(delivered.map((d) => d.text).join('')).toBe(ANSWER);
}

/**
 * An attempt the workflow gave up on (a heartbeat timeout while it still runs) never publishes into the stream,
 * on every path a streamed answer takes: a plain call, an agent turn's call, and `durableModel`'s `streamText`.
 */
describe('an attempt that streams after its heartbeat timed out', () => {
  const { fx } = useFixture({ worker: false });
  let native: NativeConnection;
  let activities: Activities;

  beforeAll(async () => {
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
    activities = createActivities({ providers: fx.providers, health: false });
  });
  afterAll(async () => {
    await native.close();
  });

  /** A worker of model-retry's workflows whose first attempt goes stale. */
  const staleWorker = (taskQueue: string) =>
    Worker.create({
      connection: native,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: { ...activities, modelRequest: staleFirstAttempt(activities.modelRequest) },
    });

  const script = (id: string) =>
    fx.lp.script(id, [ok(undefined, { chunks: GHOSTS }), ok(undefined, { chunks: WORDS, chunkDelayMs: 20 })]);

  it('a plain call (modelCallWorkflow)', async () => {
    const m = fx.model('stale-call');
    script(m.id);
    const taskQueue = `stale-call-${randomUUID()}`;
    const worker = await staleWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await startModelCall(
        fx.temporal.client,
        { model: m.name, prompt: 'hi', stream: { batchMs: 10 }, retry: { waits: [10] } },
        { taskQueue },
      );
      const reading = subscribe(fx.temporal.client, handle.workflowId);
      const run = await finishCall(fx, handle); // records equal the history reader's
      expect(run.result?.output.text).toBe(ANSWER);
      expectRefused(run.history, await reading, run.records);
    });
  });

  it('an agent turn (agentTurnWorkflow)', async () => {
    const m = fx.model('stale-turn');
    script(m.id);
    const taskQueue = `stale-turn-${randomUUID()}`;
    const worker = await staleWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await startAgentTurn(
        fx.temporal.client,
        { model: m.name, prompt: 'hi', stream: { batchMs: 10 }, retry: { waits: [10] } },
        { taskQueue },
      );
      const reading = subscribe(fx.temporal.client, handle.workflowId);
      const run = await finishTurn(fx, handle); // records equal the history reader's
      expect(run.result?.text).toBe(ANSWER);
      expectRefused(await handle.fetchHistory(), await reading, run.records);
    });
  });

  describe('durableModel', () => {
    let code: string;
    const histories: { workflowId: string; history: History }[] = [];
    beforeAll(async () => {
      code = await bundleAiSdkWorkflows();
    });
    afterAll(async () => {
      // The run replayed against the bundle it ran on.
      if (histories.length === 0) return;
      const dir = mkdtempSync(join(tmpdir(), 'model-retry-stale-'));
      writeFileSync(join(dir, 'bundle.js'), code);
      try {
        await replayAll(histories, { workflowBundlePath: join(dir, 'bundle.js') });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("streamText's call (durableStreamWorkflow)", async () => {
      const m = fx.model('stale-durable');
      script(m.id);
      const plugin = new ModelRetryPlugin({ activities: { providers: fx.providers, health: false } });
      const taskQueue = `stale-durable-${randomUUID()}`;
      const worker = await Worker.create({
        connection: native,
        namespace: inject('temporalNamespace'),
        taskQueue,
        workflowBundle: { code },
        // The worker's own activities win over the plugin's.
        activities: { modelRequest: staleFirstAttempt(activities.modelRequest) },
        plugins: [plugin],
      });
      const client = new Client({
        connection: fx.temporal.client.connection,
        namespace: inject('temporalNamespace'),
        plugins: [plugin],
      });
      await worker.runUntil(async () => {
        const handle: WorkflowHandle = await client.workflow.start('durableStreamWorkflow', {
          taskQueue,
          workflowId: `stale-durable-${randomUUID()}`,
          args: [
            { model: m.name, prompt: 'hi', options: { stream: { batchMs: 10 }, retry: { waits: [10] } } },
          ],
        });
        const reading = subscribe(client, handle.workflowId);
        const run = await finishAiSdkRun<{ text: string }>(handle);
        histories.push({ workflowId: handle.workflowId, history: run.history });
        expect(run.result?.text).toBe(ANSWER);
        expectRefused(run.history, await reading, run.records);
      });
    });
  });
});
