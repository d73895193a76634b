import { randomUUID } from 'node:crypto';
import { Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { describe, expect, inject, it } from 'vitest';
import { eventTypeName } from '../../client/history-format.js';
import type { RunSummary } from '../../client/list-runs.js';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok } from '../../loopback/index.js';
import { statusQuery } from '../../common/queries.js';
import protoPackage from '@temporalio/proto';
import {
  ATTEMPT_COUNT,
  CLASSES_MET,
  LAST_FAILURE_CLASS,
  MODELS_TRIED,
  STOP_REASON,
} from '../../common/search-attributes.js';
import { runCli } from '../harness/cli.js';
import { finishCall, runCall } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import { useFixture } from '../harness/fixture.js';
import { createTestNamespace } from '../harness/namespace.js';
import { until as untilValue } from '../harness/until.js';

/** Waits until `probe` gives a value (a thrown error counts as not yet), every 200 ms for 30 s at most. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  untilValue(what, probe, timeoutMs, 200);

/** The event types after the last attempt activity closed, in order. */
function typesAfterLastAttempt(run: Pick<CallRun, 'history'>): string[] {
  const types = (run.history.events ?? []).map(eventTypeName);
  const last = types.findLastIndex((t) => /^ActivityTask(Completed|Failed|Canceled|TimedOut)$/.test(t));
  return types.slice(last + 1);
}

describe('findable runs: search attributes set once when a call stops, and `model-retry list`', () => {
  const { fx, worker } = useFixture();

  const attributes = async (run: Pick<CallRun, 'handle'>) => {
    const sa = (await run.handle.describe()).typedSearchAttributes;
    return {
      stopReason: sa.get(STOP_REASON),
      attempts: sa.get(ATTEMPT_COUNT),
      models: sa.get(MODELS_TRIED),
      lastFailure: sa.get(LAST_FAILURE_CLASS),
    };
  };

  it('sets them in one upsert after the last attempt of a call that answered (and one per new class before)', async () => {
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [fail(401)]);
    fx.lp.script(b.id, [fail(502), ok('from b')]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10] },
    });
    expect(run.result?.output.text).toBe('from b');
    expect(await attributes(run)).toEqual({
      stopReason: 'succeeded',
      attempts: 3,
      models: [a.name, b.name],
      lastFailure: 'ServerError',
    });
    const types = (run.history.events ?? []).map(eventTypeName);
    // AuthFailed and ServerError were each met once: one upsert each as they happened, then the stop's.
    expect(types.filter((t) => t === 'UpsertWorkflowSearchAttributes')).toHaveLength(3);
    // The attempts reported that the attributes are registered: the stop costs the upsert alone, no marker.
    expect(typesAfterLastAttempt(run)).toEqual([
      'WorkflowTaskScheduled',
      'WorkflowTaskStarted',
      'WorkflowTaskCompleted',
      'UpsertWorkflowSearchAttributes',
      'WorkflowExecutionCompleted',
    ]);
  });

  it('sets the stop reason of a call that failed (non-retryable), with no models when none was tried', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(await attributes(run)).toEqual({
      stopReason: 'non-retryable',
      attempts: 1,
      models: [m.name],
      lastFailure: 'BadRequest',
    });
    expect(typesAfterLastAttempt(run).slice(-3)).toEqual([
      'WorkflowTaskCompleted',
      'UpsertWorkflowSearchAttributes',
      'WorkflowExecutionFailed',
    ]);
  });

  it('sets them on a call cancelled in its wait, and the workflow still closes as cancelled', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(503)]);
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
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const history = await handle.fetchHistory();
    fx.histories.push({ workflowId: handle.workflowId, history });
    expect(await attributes({ handle })).toEqual({
      stopReason: 'cancelled',
      attempts: 1,
      models: [m.name],
      lastFailure: 'ServerError',
    });
    expect((history.events ?? []).map(eventTypeName).slice(-3)).toEqual([
      'TimerCanceled',
      'UpsertWorkflowSearchAttributes',
      'WorkflowExecutionCanceled',
    ]);
  });

  it('`list` finds the runs that stopped on their deadline, and only those', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [{ ...fail(502), repeat: true }]);
    const deadline = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      retry: { waits: [50, 150], deadlineInMs: 5000, reserveMs: 2000, minAttemptMs: 200 },
    });
    expect(deadline.details?.stopReason).toBe('deadline');
    const other = fx.model();
    fx.lp.script(other.id, [ok('fine')]);
    const answered = await runCall(fx, worker, { model: other.name, prompt: 'hi' });
    expect(answered.result?.stopReason).toBe('succeeded');

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
    // Visibility is eventually consistent: wait until both runs are listed with their attributes.
    await until('both runs in visibility', async () => {
      const all = await list(`${scope} AND ModelRetryStopReason IS NOT NULL`);
      const ids = all.map((r) => r.workflowId);
      return ids.includes(deadline.workflowId) && ids.includes(answered.workflowId) ? true : undefined;
    });
    const found = await list(`${scope} AND ModelRetryStopReason = 'deadline'`);
    expect(found.map((r) => r.workflowId)).toEqual([deadline.workflowId]);
    // The last failed record's class: ServerError, or CoolingDown when the last attempt started (on a busy
    // machine) with less than minAttemptMs left and sent nothing
    // (docs/decisions/fleet-health-limits/012-nothing-sent-is-cooling-down.md).
    const lastFailure = deadline.records.findLast((r) => r.failure)?.failure?.class;
    expect(deadline.records.some((r) => r.failure?.class === 'ServerError')).toBe(true);
    expect(['ServerError', 'CoolingDown']).toContain(lastFailure);
    expect(found[0]).toMatchObject({
      workflowType: 'modelCallWorkflow',
      status: 'failed',
      stopReason: 'deadline',
      attempts: deadline.records.length,
      models: [m.name],
      lastFailureClass: lastFailure,
      taskQueue: worker.taskQueue,
    });

    const readable = await runCli(['list', '--query', `${scope} AND ModelRetryStopReason = 'deadline'`], env);
    expect(readable.code, readable.stderr).toBe(0);
    const lines = readable.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^WORKFLOW ID\s+STATUS\s+STARTED\s+STOP REASON\s+ATTEMPTS\s+MODELS\s+LAST FAILURE$/,
    );
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain(deadline.workflowId);
    expect(lines[1]).toMatch(new RegExp(`failed .* deadline +\\d+ +local:\\S+ +${lastFailure}$`));

    const refused = await runCli(['list', '--query', 'NoSuchAttribute = 1'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the server refused the query');
  });

  it('on a namespace lacking one of them, the worker warns naming it and calls set the others', async () => {
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    try {
      // Registered before ModelRetryClasses existed: every attribute but that one.
      const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT, INDEXED_VALUE_TYPE_KEYWORD_LIST } =
        protoPackage.temporal.api.enums.v1.IndexedValueType;
      const { namespace, client } = await createTestNamespace(connection, 'no-classes-attribute', {
        [STOP_REASON.name]: INDEXED_VALUE_TYPE_KEYWORD,
        [ATTEMPT_COUNT.name]: INDEXED_VALUE_TYPE_INT,
        [MODELS_TRIED.name]: INDEXED_VALUE_TYPE_KEYWORD_LIST,
        [LAST_FAILURE_CLASS.name]: INDEXED_VALUE_TYPE_KEYWORD,
      });
      const warnings: string[] = [];
      const taskQueue = `no-classes-${randomUUID()}`;
      const ours = await createModelRetryWorker({
        connection: native,
        namespace,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        deps: { providers: fx.providers },
        shutdownGraceMs: 2000,
        warn: (message) => warnings.push(message),
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('missing: ModelRetryClasses (KeywordList)');
      expect(warnings[0]).toContain(
        `temporal operator search-attribute create --namespace ${namespace} --name ModelRetryClasses --type KeywordList`,
      );
      expect(warnings[0]).not.toContain('--name ModelRetryStopReason');
      const m = fx.model();
      fx.lp.script(m.id, [fail(502), ok('answered all the same')]);
      const run = await ours.runUntil(async () => {
        const handle = await startModelCall(
          client,
          { model: m.name, prompt: 'hi', retry: { waits: [10] } },
          { taskQueue },
        );
        return finishCall(fx, handle);
      });
      expect(run.result?.output.text).toBe('answered all the same');
      expect(await attributes(run)).toEqual({
        stopReason: 'succeeded',
        attempts: 2,
        models: [m.name],
        lastFailure: 'ServerError',
      });
      expect((await run.handle.describe()).typedSearchAttributes.get(CLASSES_MET)).toBeUndefined();
      // The class met sets nothing (its attribute is missing); the stop sets the four others in one upsert.
      const types = (run.history.events ?? []).map(eventTypeName);
      expect(types.filter((t) => t === 'UpsertWorkflowSearchAttributes')).toHaveLength(1);
    } finally {
      await native.close();
      await connection.close();
    }
  });

  it('on a namespace without them, the worker warns with the command and starts, and calls finish without them', async () => {
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    try {
      const { namespace, client } = await createTestNamespace(connection, 'no-search-attributes');
      // First a plain worker of a user's own (no start-up check): the workflow's local activity asks by itself.
      const taskQueue = `no-sa-${randomUUID()}`;
      const plain = await Worker.create({
        connection: native,
        namespace,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities: createActivities({ providers: fx.providers }),
      });
      const m = fx.model();
      fx.lp.script(m.id, [fail(502), ok('answered all the same')]);
      const run = await plain.runUntil(async () => {
        const handle = await startModelCall(
          client,
          { model: m.name, prompt: 'hi', retry: { waits: [10] } },
          { taskQueue },
        );
        return finishCall(fx, handle);
      });
      expect(run.result?.output.text).toBe('answered all the same');
      const types = (run.history.events ?? []).map(eventTypeName);
      expect(types).not.toContain('UpsertWorkflowSearchAttributes');
      // Asked once, when the call met its first class (the answer then serves its stop): the worker's config
      // marker at the start, the search attributes' after the 502, none after the last attempt.
      expect(types.filter((t) => t === 'MarkerRecorded')).toHaveLength(2);
      expect(typesAfterLastAttempt(run).slice(-2)).toEqual([
        'WorkflowTaskCompleted',
        'WorkflowExecutionCompleted',
      ]);

      // Then model-retry's worker: it checks at start, warns with the command, and starts all the same.
      const warnings: string[] = [];
      const ours = await createModelRetryWorker({
        connection: native,
        namespace,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        deps: { providers: fx.providers },
        shutdownGraceMs: 2000,
        warn: (message) => warnings.push(message),
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`not ready on namespace "${namespace}"`);
      expect(warnings[0]).toContain(
        `temporal operator search-attribute create --namespace ${namespace} --name ModelRetryStopReason --type Keyword`,
      );
      expect(await ours.runUntil(async () => ours.getState())).toBe('RUNNING');
    } finally {
      await native.close();
      await connection.close();
    }
  });
});
