import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { ok } from '../../loopback/index.js';
import { createModelRetryWorkers } from '../../worker/worker.js';
import type { ModelRetryWorkers } from '../../worker/worker.js';
import { modelCallFixture } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';

/**
 * Eager workflow start from `startModelCall`: a host whose client shares its `NativeConnection` with a
 * worker in the same process (like the demo) gets the call's first workflow task back in the start response.
 */
describe('startModelCall with requestEagerStart', () => {
  let fx: ModelCallFixture;
  let connection: NativeConnection;
  let workers: ModelRetryWorkers;
  let running: Promise<void>;
  let client: Client;
  const taskQueue = `test-eager-${randomUUID()}`;
  beforeAll(async () => {
    fx = await modelCallFixture();
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const namespace = inject('temporalNamespace');
    workers = await createModelRetryWorkers({
      connection,
      namespace,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceMs: 2000,
      deps: { providers: fx.providers },
    });
    running = workers.run();
    client = new Client({ connection, namespace });
  });
  afterAll(async () => {
    workers?.shutdown();
    await running;
    await connection?.close();
    if (fx) await replayAll(fx.histories);
    await fx?.close();
  });

  it('starts the call eagerly when asked, and answers as a call started as usual does', async () => {
    const [a, b] = [fx.model(), fx.model()];
    fx.lp.script(a.id, [ok('eager')]);
    fx.lp.script(b.id, [ok('as usual')]);
    const eager = await startModelCall(
      client,
      { model: a.name, prompt: 'hi' },
      { taskQueue, requestEagerStart: true },
    );
    const usual = await startModelCall(client, { model: b.name, prompt: 'hi' }, { taskQueue });
    expect(eager.eagerlyStarted).toBe(true);
    expect(usual.eagerlyStarted).toBe(false);
    expect((await eager.result()).output.text).toBe('eager');
    expect((await usual.result()).output.text).toBe('as usual');
    for (const handle of [eager, usual]) {
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    }
  });
});
