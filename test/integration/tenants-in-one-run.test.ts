import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import type { ModelCallInput } from '../../common/call.js';
import { TENANT_SETTLE_SIGNAL, tenantLedgerId } from '../../common/tenants.js';
import { ok } from '../../loopback/index.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { bundleAiSdkWorkflows } from '../harness/ai-sdk.js';
import type { CallEnd } from '../harness/ai-sdk-workflows.js';
import { useFixture } from '../harness/fixture.js';
import { loopbackProviders } from '../harness/model-call.js';

/**
 * A user's workflow that calls for several tenants in one run: each call is checked and weighed by its own
 * tenant's entry of the tenants file, whichever tenant called first. The worker's answer to a run holds only the
 * entries of the tenant it was asked for and `*`, so each tenant of the run asks once.
 */
describe('calls of several tenants in one run', () => {
  const { fx } = useFixture({ worker: false });

  it("checks each call against its own tenant's envelope, asking the worker once per tenant; settles at stop", async () => {
    const model = fx.model();
    fx.lp.script(model.id, [ok('answered'), ok('answered again'), ok('answered a third time')]);
    const providers = loopbackProviders(fx.lp, { local: {} });
    // A tenant's ledger is one per namespace, on the task queue of the worker that started it: names of this
    // file's own, so that no other file's worker holds them.
    const [acme, globex] = ['acme', 'globex'].map((t) => `${t}-${randomUUID().slice(0, 8)}`) as [
      string,
      string,
    ];
    // `acme` counts tokens, so each of its calls needs an output bound; `*` holds nothing.
    const tenants = { [acme]: { maxTotalTokens: 1_000_000, period: 'day' as const }, '*': { weight: 1 } };
    const plugin = new ModelRetryPlugin({ activities: { providers, tenants } });
    const taskQueue = `tenants-one-run-${randomUUID()}`;
    const worker = await Worker.create({
      connection: fx.temporal.nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { code: await bundleAiSdkWorkflows() },
      plugins: [plugin],
    });
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: inject('temporalNamespace'),
      plugins: [plugin],
    });
    const call = (tenant: string | undefined, bound?: number): ModelCallInput => ({
      model: model.name,
      prompt: 'hi',
      ...(tenant !== undefined ? { tenant } : {}),
      ...(bound !== undefined ? { settings: { maxOutputTokens: bound } } : {}),
    });
    const ledger = client.workflow.getHandle(tenantLedgerId(acme));
    const settles = async () =>
      ((await ledger.fetchHistory()).events ?? []).filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === TENANT_SETTLE_SIGNAL,
      ).length;
    let before = 0;
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('callsInOneRunWorkflow', {
        taskQueue,
        workflowId: `tenants-one-run-${randomUUID()}`,
        // An unnamed tenant first (held by `*`), then `acme` without an output bound, then with one, then none.
        args: [[call(globex), call(acme), call(acme, 100), call(undefined)]],
      });
      const ends = await handle.result();
      const expected: CallEnd[] = [
        { text: 'answered' },
        {
          failure: 'InvalidModelCallInput',
          message: expect.stringContaining(
            `tenant ${acme}'s envelope counts tokens: each attempt reserves its output bound`,
          ) as unknown as string,
        },
        { text: 'answered again' },
        { text: 'answered a third time' },
      ];
      expect(ends).toEqual(expected);
      // One ask for `globex`, one for `acme`; the call without a tenant takes the run's first answer.
      const history = await fetchDecodedHistory(handle);
      const asks = (history.events ?? []).filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      );
      expect(asks).toHaveLength(2);
      before = await settles();
    });
    // The Worker stopped: the plugin settled the lease it held, rather than leave it counted until tomorrow.
    expect(await settles()).toBe(before + 1);
    await ledger.terminate('test over');
  });
});
