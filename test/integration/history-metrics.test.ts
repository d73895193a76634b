import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { freePort } from '../../worker/free-port.js';
import { fail, ok } from '../../loopback/index.js';
import { spawnCli } from '../harness/cli.js';
import type { SpawnedCli } from '../harness/cli.js';
import { finishCall, TEST_API_KEY } from '../harness/model-call.js';
import { useFixture, useTempDir } from '../harness/fixture.js';

/** The value of the Prometheus sample `name{...}` whose labels include every one of `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`));
    if (has) return Number(m[3]);
  }
  return undefined;
}

describe('Prometheus metrics from `model-retry worker --metrics`', () => {
  const { fx } = useFixture({ worker: false });
  let worker: SpawnedCli | undefined;
  const dir = useTempDir('model-retry-metrics-');
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGINT');
      await worker.exited;
    }
  });

  it('serves Temporal runtime metrics and our own counters of attempts, waits and stop reasons', async () => {
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
      }),
    );
    const port = await freePort();
    const taskQueue = `metrics-${randomUUID()}`;
    worker = spawnCli(
      ['worker', '--metrics', `127.0.0.1:${port}`, '--providers', providersFile, '--task-queue', taskQueue],
      {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
        LOOPBACK_KEY: TEST_API_KEY,
        MODEL_RETRY_SHUTDOWN_GRACE_MS: '2000',
      },
    );
    await worker.waitFor(/polling task queue/, 120_000);
    expect(worker.stderr()).toContain(`Prometheus metrics on http://127.0.0.1:${port}/metrics`);
    expect(worker.stderr()).not.toContain('search attributes are not ready');

    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('counted')]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [30] } },
      { taskQueue },
    );
    const run = await finishCall(fx, handle);
    expect(run.result?.output.text).toBe('counted');

    let text: string;
    const end = Date.now() + 30_000;
    for (;;) {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      if (sample(text, 'model_retry_calls', { stop_reason: 'succeeded' }) !== undefined) break;
      if (Date.now() > end) throw new Error(`our metrics did not appear:\n${text}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const attempt = { model: m.name, provider: 'local', taskQueue };
    expect(
      sample(text, 'model_retry_attempts', { ...attempt, outcome: 'failed', failure_class: 'ServerError' }),
    ).toBe(1);
    expect(sample(text, 'model_retry_attempts', { ...attempt, outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'model_retry_attempt_ms_count', { ...attempt, outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'model_retry_calls', { stop_reason: 'succeeded', taskQueue })).toBe(1);
    expect(
      sample(text, 'model_retry_waits', { action: 'retry-same', failure_class: 'ServerError', taskQueue }),
    ).toBe(1);
    expect(sample(text, 'model_retry_wait_ms_sum', { action: 'retry-same', taskQueue })).toBe(30);
    // And Temporal's own worker metrics.
    expect(text).toMatch(/^temporal_workflow_completed\{[^}]*task_queue="[^"]*"/m);
    expect(text).toMatch(/^temporal_activity_execution_latency/m);

    worker.child.kill('SIGINT');
    const { code } = await worker.exited;
    expect(code).toBe(0);
  });
});
