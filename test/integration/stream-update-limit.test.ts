import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { ok, startLoopbackProvider } from '../../worker/loopback/index.js';
import type { LoopbackProvider } from '../../worker/loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import { TEST_API_KEY, TEST_SECRETS } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';
import { leakReport, sweepHistories } from '../harness/secret-scan.js';
import { leakNeedles } from '../harness/secrets.js';
import type { temporal } from '@temporalio/proto';

/**
 * Every subscriber poll is a workflow update, and Temporal allows a run only so many (2,000 by default). This file
 * runs its own dev server with the allowance lowered to a few, so a streamed answer outlasts it.
 */
describe('a stream that outlasts the updates Temporal allows a run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-updates-'));
  const taskQueue = 'stream-update-limit';
  let server: DevServer;
  let connection: Connection;
  let native: NativeConnection;
  let lp: LoopbackProvider;
  let worker: Worker;
  let running: Promise<void>;
  let client: Client;
  const histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[] = [];

  beforeAll(async () => {
    server = await startDevServer({
      dbFilename: join(dir, 'updates.sqlite'),
      extraArgs: ['--dynamic-config-value', 'history.maxTotalUpdates=6'],
    });
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
    lp = await startLoopbackProvider();
    worker = await createModelRetryWorker({
      connection: native,
      namespace: server.namespace,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceMs: 2000,
      deps: {
        providers: createProviderRegistry(
          { local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' } },
          { env: { LOOPBACK_KEY: TEST_API_KEY } },
        ),
      },
    });
    running = worker.run();
    client = new Client({ connection, namespace: server.namespace });
  });

  afterAll(async () => {
    await replayAll(histories);
    // This file's own server is not the suite's: its histories are swept for the credentials here.
    const leaks = client ? (await sweepHistories(client, leakNeedles(TEST_SECRETS))).leaks : [];
    worker?.shutdown();
    await running;
    await native?.close();
    await connection?.close();
    await lp?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    expect(leaks, leakReport(leaks)).toEqual([]);
  });

  it('still gives a subscriber from the start every delta, read from history once the run has closed', async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => `w${i} `);
    lp.script('long', [ok(undefined, { chunks, chunkDelayMs: 40 })]);
    const handle = await startModelCall(
      client,
      { model: 'local:long', prompt: 'hi', stream: { batchMs: 20 } },
      { taskQueue },
    );
    let text = '';
    let live = 0;
    let fromHistory = 0;
    for await (const item of subscribeCallStream(client, handle.workflowId, { pollCooldownMs: 10 })) {
      if (item.kind !== 'delta') continue;
      text += item.delta.text;
      if (item.offset === undefined) fromHistory += 1;
      else live += 1;
    }
    const result = await handle.result();
    expect(result.output.text).toBe(chunks.join(''));
    expect(text).toBe(chunks.join(''));
    // Some deltas came live, until the polls were refused; the rest from the closed run's history.
    expect(live).toBeGreaterThan(0);
    expect(fromHistory).toBeGreaterThan(0);
    const history = await handle.fetchHistory();
    histories.push({ workflowId: handle.workflowId, history });
    const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(updates.length).toBeLessThanOrEqual(6);
  });
});
