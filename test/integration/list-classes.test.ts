import { describe, expect, inject, it } from 'vitest';
import type { RunSummary } from '../../client/list-runs.js';
import { CLASSES_MET } from '../../common/search-attributes.js';
import { fail, ok } from '../../loopback/index.js';
import { runCli } from '../harness/cli.js';
import { useFixture } from '../harness/fixture.js';
import { runCall } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import { startModelCall } from '../../client/model-call-client.js';
import { attemptsQuery, statusQuery } from '../../common/queries.js';

describe('ModelRetryClasses: the classes a call met, and `list --class`', () => {
  const { fx, worker } = useFixture();
  const env = {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
  };

  it('sets every class met, each once, and `list --class` finds the calls that met it, and only those', async () => {
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [fail(503), fail(401)]);
    fx.lp.script(b.id, [fail(503), ok('from b')]);
    const met = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'hi',
      retry: { waits: [10, 10, 10] },
    });
    expect(met.result?.output.text).toBe('from b');
    expect((await met.handle.describe()).typedSearchAttributes.get(CLASSES_MET)).toEqual([
      'ServerError',
      'AuthFailed',
    ]);
    const clean = fx.model();
    fx.lp.script(clean.id, [ok('fine')]);
    const answered = await runCall(fx, worker, { model: clean.name, prompt: 'hi' });
    expect(answered.result?.stopReason).toBe('succeeded');

    const scope = `TaskQueue = '${worker.taskQueue}'`;
    const list = async (...args: string[]) => {
      const { code, stdout, stderr } = await runCli(['list', '--query', scope, '--json', ...args], env);
      expect(code, stderr).toBe(0);
      return (JSON.parse(stdout) as RunSummary[]).map((r) => r.workflowId);
    };
    // Visibility is eventually consistent: wait until both runs are listed.
    await until('both runs in visibility', async () => ((await list()).length === 2 ? true : undefined));
    await until('the class in visibility', async () =>
      (await list('--class', 'AuthFailed')).length === 1 ? true : undefined,
    );
    expect(await list('--class', 'AuthFailed')).toEqual([met.workflowId]);
    expect(await list('--class', 'ServerError', '--class', 'AuthFailed')).toEqual([met.workflowId]);
    expect(await list('--class', 'RateLimited')).toEqual([]);
  });

  it('a call still waiting after a class it met is found by `list --class` while it runs, one upsert per new class', async () => {
    const m = fx.model();
    // Two ServerErrors (one class, two attempts), then a long wait: the call is running when it is listed.
    fx.lp.script(m.id, [fail(503), fail(503)]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [10, 600_000] } },
      { taskQueue: worker.taskQueue },
    );
    try {
      await until('the long wait', async () =>
        (await handle.query(statusQuery))?.state === 'waiting' &&
        (await handle.query(attemptsQuery)).length === 2
          ? true
          : undefined,
      );
      const scope = `TaskQueue = '${worker.taskQueue}' AND WorkflowId = '${handle.workflowId}'`;
      // Visibility is eventually consistent: wait until the running call is listed by its class.
      const found = await until('the running call listed by its class', async () => {
        const r = await runCli(['list', '--query', scope, '--json', '--class', 'ServerError'], env);
        expect(r.code, r.stderr).toBe(0);
        const runs = JSON.parse(r.stdout) as RunSummary[];
        return runs.length === 1 ? runs : undefined;
      });
      expect(found.map((r) => [r.workflowId, r.status])).toEqual([[handle.workflowId, 'running']]);
      const described = await handle.describe();
      expect(described.status.name).toBe('RUNNING');
      expect(described.typedSearchAttributes.get(CLASSES_MET)).toEqual(['ServerError']);
      const history = await handle.fetchHistory();
      const upserts = (history.events ?? []).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes);
      expect(upserts).toHaveLength(1);
    } finally {
      await handle.cancel();
      await handle.result().catch(() => undefined);
    }
  });

  it('refuses a name that is no failure class, naming `--class` (exit 2, nothing asked of the server)', async () => {
    const { code, stderr } = await runCli(['list', '--class', 'Nope'], env);
    expect(code).toBe(2);
    expect(stderr).toContain('`--class` "Nope" is not a failure class');
  });
});
