import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../worker/free-port.js';
import { fail, ok } from '../../loopback/index.js';
import { runCli, spawnCli } from '../harness/cli.js';
import type { SpawnedCli } from '../harness/cli.js';
import { TEST_API_KEY } from '../harness/model-call.js';
import { useFixture, useTempDir } from '../harness/fixture.js';
import { startOtlpReceiver } from '../harness/otlp-receiver.js';
import type { OtlpReceiver } from '../harness/otlp-receiver.js';

describe('traces from `model-retry worker` and `model-retry call`, configured by the OTEL_* variables', () => {
  const { fx } = useFixture({ worker: false });
  const dir = useTempDir('model-retry-otel-');
  let worker: SpawnedCli | undefined;
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGINT');
      await worker.exited;
    }
    await receiver?.close();
  });

  it('links the command’s StartWorkflow span to the worker’s spans; metrics carry the same service name', async () => {
    receiver = await startOtlpReceiver();
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
      }),
    );
    const taskQueue = `otel-${randomUUID()}`;
    const otel = {
      // The base endpoint: the exporter posts to <endpoint>/v1/traces, as a collector expects.
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ''),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'model-retry-otel-test',
    };
    const temporal = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      MODEL_RETRY_TASK_QUEUE: taskQueue,
    };
    const port = await freePort();
    worker = spawnCli(['worker', '--metrics', `127.0.0.1:${port}`, '--providers', providersFile], {
      ...temporal,
      ...otel,
      LOOPBACK_KEY: TEST_API_KEY,
      MODEL_RETRY_SHUTDOWN_GRACE_MS: '2000',
    });
    await worker.waitFor(/polling task queue/, 120_000);
    expect(worker.stderr()).toContain(`traces to ${receiver.url} (http/json)`);

    const m = fx.model();
    fx.lp.script(m.id, [fail(503), ok('traced')]);
    const call = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--waits', '20', '--json'],
      { ...temporal, ...otel },
      120_000,
    );
    expect(call.code).toBe(0);
    const workflowId = (JSON.parse(call.stdout) as { workflowId: string }).workflowId;

    const spans = await receiver.until(
      (s) =>
        s.some((x) => x.name === 'StartWorkflow:modelCallWorkflow') &&
        s.some((x) => x.name === 'callModel c1'),
      90_000,
    );
    const start = spans.find((s) => s.name === 'StartWorkflow:modelCallWorkflow');
    const run = spans.find((s) => s.name === 'RunWorkflow:modelCallWorkflow' && s.traceId === start?.traceId);
    expect(run?.parentSpanId).toBe(start?.spanId);
    expect(run?.attributes['workflowId']).toBe(workflowId);
    const callSpan = spans.find((s) => s.name === 'callModel c1');
    expect(callSpan?.parentSpanId).toBe(run?.spanId);
    expect(callSpan?.events.map((e) => e.attributes['model_retry.wait.cause'])).toEqual(['ServerError']);
    expect(start?.resource['service.name']).toBe('model-retry-otel-test');
    expect(callSpan?.resource['service.name']).toBe('model-retry-otel-test');

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/model_retry_attempts\{[^}]*service_name="model-retry-otel-test"/);
  });
});
