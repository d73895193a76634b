import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TenantsConfigError } from '../../activities/index.js';
import { firstPayload } from '../../client/history-events.js';
import type { WorkerConfig } from '../../common/worker-config.js';
import { ok } from '../../loopback/index.js';
import { useFixture, useTempDir } from '../harness/fixture.js';
import { loopbackProviders, runCall } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';

/** What the worker answered the run's `modelRetryConfig` with: the result of its local activity's marker. */
function workerConfigOf(run: CallRun): WorkerConfig | undefined {
  for (const event of run.history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') continue;
    const data = firstPayload<{ activity_type?: string }>(marker.details?.data);
    if (data?.activity_type === 'modelRetryConfig') return firstPayload<WorkerConfig>(marker.details?.result);
  }
  return undefined;
}

describe("a worker's tenants file", () => {
  const { fx } = useFixture({ worker: false });
  const dir = useTempDir('model-retry-worker-tenants-');

  it('when bad, keeps the worker from starting, naming the file and the field', async () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ acme: { maxTotalTokens: 1000, weight: 0 } }));
    const start = fx.temporal.startWorker({
      deps: { providers: fx.providers, env: { MODEL_RETRY_TENANTS: path } },
    });
    await expect(start).rejects.toThrow(TenantsConfigError);
    await expect(start).rejects.toThrow(`${path} (named by MODEL_RETRY_TENANTS)`);
    await expect(start).rejects.toThrow('`acme.weight` must be a number above 0 and at most 1000');
  });

  it("reaches the workflow in the worker's config, with each model's output limit", async () => {
    const [m, g, n] = [fx.model(), fx.model(), fx.model()];
    const providers = loopbackProviders(fx.lp, { local: { models: { [m.id]: { maxOutputTokens: 4096 } } } });
    const tenants = { acme: { maxTotalTokens: 2_000_000, period: 'day' }, '*': { weight: 1 } } as const;
    const path = join(dir, 'good.json');
    writeFileSync(path, JSON.stringify(tenants));
    const worker = await fx.temporal.startWorker({ deps: { providers, env: { MODEL_RETRY_TENANTS: path } } });
    try {
      for (const x of [m, g, n]) fx.lp.script(x.id, [ok('answered')]);
      // A run records its own tenant's entry and the default, never the rest of the file.
      const acme = await runCall(fx, worker, { model: m.name, prompt: 'hi', tenant: 'acme' });
      expect(acme.result?.output.text).toBe('answered');
      expect(workerConfigOf(acme)?.tenants).toEqual(tenants);
      expect(workerConfigOf(acme)?.outputLimits).toEqual({ [m.name]: 4096 });
      const other = await runCall(fx, worker, { model: g.name, prompt: 'hi', tenant: 'globex' });
      expect(workerConfigOf(other)?.tenants).toEqual({ '*': { weight: 1 } });
      const none = await runCall(fx, worker, { model: n.name, prompt: 'hi' });
      expect(workerConfigOf(none)?.tenants).toEqual({ '*': { weight: 1 } });
    } finally {
      await worker.stop();
    }
  });
});
