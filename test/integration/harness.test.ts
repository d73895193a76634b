import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { harnessWorkflow } from '../harness/echo-workflow.js';
import { createHarnessActivities } from '../harness/echo-activity.js';
import { eventTypeName } from '../../client/history-format.js';
import { connectTestTemporal } from '../harness/temporal.js';
import type { TestTemporal } from '../harness/temporal.js';

describe('the test harness', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
  });

  it('runs a durable timer and an activity on a real dev server, and the history shows both', async () => {
    // The echo workflow is the test harness's own: production workers never register it.
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const taskQueue = `harness-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../harness/echo-workflow.ts', import.meta.url)),
      activities: createHarnessActivities(),
    });
    const running = worker.run();
    const stop = async () => {
      worker.shutdown();
      await running;
      await connection.close();
    };
    const workflowId = `harness-${taskQueue}`;
    const handle = await temporal.client.workflow.start(harnessWorkflow, {
      taskQueue,
      workflowId,
      args: [{ message: 'ping', waitMs: 200 }],
    });
    const result = await handle.result();
    await stop();

    expect(result.echoed).toBe(`echo: ping (from ${workflowId}) [activity 1, attempt 1]`);
    expect(result.waitedMs).toBeGreaterThanOrEqual(200);

    const types = ((await handle.fetchHistory()).events ?? []).map(eventTypeName);
    expect(types[0]).toBe('WorkflowExecutionStarted');
    expect(types.filter((t) => t.startsWith('Timer'))).toEqual(['TimerStarted', 'TimerFired']);
    expect(types.indexOf('TimerFired')).toBeLessThan(types.indexOf('ActivityTaskScheduled'));
    expect(types).toContain('ActivityTaskCompleted');
    expect(types.at(-1)).toBe('WorkflowExecutionCompleted');
  });

  it('registers model-retry search attributes on the server', async () => {
    const description = await temporal.client.connection.operatorService.listSearchAttributes({
      namespace: temporal.client.options.namespace,
    });
    expect(Object.keys(description.customAttributes ?? {})).toEqual(
      expect.arrayContaining([
        'ModelRetryStopReason',
        'ModelRetryAttempts',
        'ModelRetryModels',
        'ModelRetryLastFailure',
        'ModelRetryClasses',
        'ModelRetryTenant',
      ]),
    );
  });
});
