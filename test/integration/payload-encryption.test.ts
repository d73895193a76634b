import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import type { temporal } from '@temporalio/proto';
import protoPackage from '@temporalio/proto';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallReport } from '../../client/call-report.js';
import { decodeHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import { freePort } from '../../worker/free-port.js';
import { fail, ok } from '../../loopback/index.js';
import { createDataConverter } from '../../payloads/data-converter.js';
import type { CodecKey } from '../../payloads/codec-keys.js';
import { runCli, spawnCli } from '../harness/cli.js';
import { buildEncodingWorkflowBundle } from '../harness/codec-bundle.js';
import { modelCallFixture, runCall, TEST_API_KEY } from '../harness/model-call.js';
import type { CallRun, ModelCallFixture } from '../harness/model-call.js';
import { startWorkerProcess } from '../harness/processes.js';
import { replayAll } from '../harness/replay.js';
import { connectTestTemporal } from '../harness/temporal.js';
import type { TestTemporal } from '../harness/temporal.js';
import { key, keyEntry } from '../unit/payloads/helpers.js';

type History = temporal.api.history.v1.IHistory;
const HistoryProto = protoPackage.temporal.api.history.v1.History;
const Payloads = protoPackage.temporal.api.common.v1.Payloads;
const execFileAsync = promisify(execFile);

const PROMPT = 'PROMPT-MARKER-7f3a: summarise the merger terms for Acme and Globex';
const SYSTEM = 'SYSTEM-MARKER-51c2: answer as the legal team';
const OUTPUT = 'OUTPUT-MARKER-c9d0: the merger closes in March';
const PROVIDER_ERROR = 'ERROR-MARKER-0b7e upstream exploded';

/** Whether `text` is anywhere in the history, as the server holds it: its protobuf bytes or its JSON export. */
function inRawHistory(history: History, text: string): boolean {
  const bytes = Buffer.from(HistoryProto.encode(history).finish());
  return bytes.includes(Buffer.from(text)) || historyToJSON(history).includes(text);
}

/** Every failure in the history (events' failures and their causes). */
function failuresOf(history: History): temporal.api.failure.v1.IFailure[] {
  const found: temporal.api.failure.v1.IFailure[] = [];
  const visit = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'failure' || k === 'cause') && v && typeof v === 'object' && 'message' in v)
        found.push(v as temporal.api.failure.v1.IFailure);
      visit(v);
    }
  };
  visit(history.events);
  return found;
}

describe('encrypted payloads: AES-256-GCM on workers and clients', () => {
  const k1: CodecKey = key('k1');
  const k2: CodecKey = key('k2');
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-encryption-'));
  const env = (keys: CodecKey[] | undefined) => ({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    MODEL_RETRY_CODEC_KEYS: keys ? keys.map(keyEntry).join(',') : '',
  });
  let bundle: { path: string; remove(): void };
  let fx: ModelCallFixture;
  let plain: TestTemporal;
  let answered: CallRun;
  let failed: CallRun;
  const raw: { workflowId: string; history: History }[] = [];
  const rawOf = async (workflowId: string) => {
    const history = await plain.client.workflow.getHandle(workflowId).fetchHistory();
    raw.push({ workflowId, history });
    return history;
  };

  beforeAll(async () => {
    bundle = await buildEncodingWorkflowBundle();
    fx = await modelCallFixture({ dataConverter: createDataConverter({ codecKeys: [k1] }) });
    plain = await connectTestTemporal();
    const worker = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      dataConverter: createDataConverter({ codecKeys: [k1] }),
      workflowBundlePath: bundle.path,
    });
    const m = fx.model();
    fx.lp.script(m.id, [fail(500, { message: PROVIDER_ERROR }), ok(OUTPUT)]);
    answered = await runCall(fx, worker, {
      model: m.name,
      system: SYSTEM,
      prompt: PROMPT,
      retry: { waits: [10] },
    });
    const b = fx.model();
    fx.lp.script(b.id, [fail(400, { message: PROVIDER_ERROR })]);
    failed = await runCall(fx, worker, { model: b.name, prompt: PROMPT, retry: { waits: [10] } });
    await worker.stop();
  });
  afterAll(async () => {
    if (raw.length > 0)
      await replayAll(raw, {
        dataConverter: createDataConverter({ codecKeys: [k2, k1] }),
        workflowBundlePath: bundle.path,
      });
    await plain?.close();
    await fx?.close();
    bundle?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the prompt, the output, provider errors and stack traces out of the raw history', async () => {
    expect(answered.result?.output.text).toBe(OUTPUT);
    expect(answered.records.map((r) => r.failure?.message ?? 'ok')).toEqual([
      expect.stringContaining(PROVIDER_ERROR),
      'ok',
    ]);
    // What the client with the key reads has every text (so the scan below would find them in clear).
    for (const text of [PROMPT, SYSTEM, OUTPUT, PROVIDER_ERROR])
      expect(inRawHistory(answered.history, text)).toBe(true);

    for (const run of [answered, failed]) {
      const history = await rawOf(run.workflowId);
      for (const text of [PROMPT, SYSTEM, OUTPUT, PROVIDER_ERROR, TEST_API_KEY, 'model-request', '    at '])
        expect(inRawHistory(history, text), `${text} in ${run.workflowId}`).toBe(false);
      const failures = failuresOf(history);
      expect(failures.length).toBeGreaterThan(0);
      for (const f of failures)
        expect({ message: f.message, stackTrace: f.stackTrace }).toEqual({
          message: 'Encoded failure',
          stackTrace: '',
        });
      expect(() => readCallHistory(history)).toThrow(/Unknown encoding: binary\/encrypted/);
    }
    // The workflow's own failure (built in the sandbox) reaches the client with the key whole.
    expect(failed.failure?.type).toBe('ModelCallFailed');
    expect(failed.failure?.message).toMatch(/\[backend 0 local:\S+\] BadRequest 400/);
  });

  it('rebuilds the attempts from history given the key: readCallHistory and `model-retry history`', async () => {
    const history = await rawOf(answered.workflowId);
    const decoded = await decodeHistory(
      history,
      createDataConverter({ codecKeys: [k1] }).payloadCodecs ?? [],
    );
    expect(readCallHistory(decoded).attempts).toEqual(answered.records);

    const cli = await runCli(['history', answered.workflowId, '--json'], env([k1]));
    expect(cli.code, cli.stderr).toBe(0);
    const report = JSON.parse(cli.stdout) as CallReport;
    expect(report.attempts).toEqual(answered.records);
    expect(report.output?.text).toBe(OUTPUT);

    const file = join(dir, 'export.json');
    writeFileSync(file, historyToJSON(history));
    const fromFile = await runCli(['history', '--file', file, '--json'], env([k1]));
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect((JSON.parse(fromFile.stdout) as CallReport).attempts).toEqual(answered.records);
  });

  it('without the key, `history` says which key is missing and how to supply it (exit 2)', async () => {
    const none = await runCli(['history', answered.workflowId], env(undefined));
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /encrypted with key id "k1", and no key is loaded\. Add that key .* to MODEL_RETRY_CODEC_KEYS/,
    );
    const other = await runCli(['history', answered.workflowId], env([k2]));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/encrypted with key id "k1", and the loaded keys are "k2"/);
    const bad = await runCli(['history', answered.workflowId], {
      ...env(undefined),
      MODEL_RETRY_CODEC_KEYS: 'k1:short',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/MODEL_RETRY_CODEC_KEYS: the key "k1" is 3 bytes; AES-256 needs exactly 32/);
  });

  it('rotates keys: the new key encrypts new calls, the old one still reads the old calls', async () => {
    const rotated = createDataConverter({ codecKeys: [k2, k1] });
    const fx2 = await modelCallFixture({ dataConverter: rotated });
    try {
      const worker = await fx2.temporal.startWorker({
        deps: { providers: fx2.providers },
        dataConverter: createDataConverter({ codecKeys: [k2, k1] }),
        workflowBundlePath: bundle.path,
      });
      const m = fx2.model();
      fx2.lp.script(m.id, [fail(503), ok(OUTPUT)]);
      const fresh = await runCall(fx2, worker, { model: m.name, prompt: PROMPT, retry: { waits: [10] } });
      await worker.stop();
      const history = await rawOf(fresh.workflowId);
      const keyIds = new Set(
        JSON.stringify(JSON.parse(historyToJSON(history)) as unknown).match(/"encryption-key-id":"[^"]+"/g) ??
          [],
      );
      expect([...keyIds]).toEqual([`"encryption-key-id":"${Buffer.from('k2').toString('base64')}"`]);
      const both = createDataConverter({ codecKeys: [k2, k1] }).payloadCodecs ?? [];
      const old = await decodeHistory(await rawOf(answered.workflowId), both);
      expect(readCallHistory(old).attempts).toEqual(answered.records);
      const onlyNew = createDataConverter({ codecKeys: [k2] }).payloadCodecs ?? [];
      expect(readCallHistory(await decodeHistory(history, onlyNew)).attempts).toEqual(fresh.records);
      await expect(decodeHistory(await rawOf(answered.workflowId), onlyNew)).rejects.toThrow(/key id "k1"/);
    } finally {
      await fx2.close();
    }
  });

  it('`model-retry worker` and `model-retry call` encrypt with the keys of their environment', async () => {
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
      }),
    );
    const taskQueue = `encrypted-worker-${randomUUID()}`;
    const worker = await startWorkerProcess({
      address: inject('temporalAddress'),
      taskQueue,
      providersFile,
      env: { ...env([k1]), LOOPBACK_KEY: TEST_API_KEY },
    });
    try {
      expect(worker.cli.stderr()).toContain(
        'model-retry worker: payloads encrypted (AES-256-GCM) with key id "k1"',
      );
      expect(worker.cli.stderr()).not.toContain(Buffer.from(k1.key).toString('base64'));
      const m = fx.model();
      fx.lp.script(m.id, [fail(400, { message: PROVIDER_ERROR })]);
      const call = await runCli(['call', '--model', m.name, '--prompt', PROMPT, '--no-retry', '--json'], {
        ...env([k1]),
        MODEL_RETRY_TASK_QUEUE: taskQueue,
      });
      expect(call.code, call.stderr).toBe(1);
      const report = JSON.parse(call.stdout) as CallReport;
      expect(report.attempts.map((a) => a.failure?.message)).toEqual([
        expect.stringContaining(PROVIDER_ERROR),
      ]);
      const history = await rawOf(report.workflowId);
      for (const text of [PROMPT, PROVIDER_ERROR, 'BadRequest 400'])
        expect(inRawHistory(history, text), text).toBe(false);
      const closed = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
      expect(closed?.message).toBe('Encoded failure');
    } finally {
      await worker.stop();
    }
  });

  it('the codec endpoint decodes what the worker encoded, for the Temporal CLI and UI', async () => {
    const port = await freePort();
    const server = spawnCli(['codec-server', '--listen', `127.0.0.1:${port}`], env([k1]));
    try {
      await server.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(server.stderr()).toContain('payloads encrypted (AES-256-GCM) with key id "k1"');
      const history = await rawOf(answered.workflowId);
      const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes)
        ?.activityTaskScheduledEventAttributes?.input;
      const response = await fetch(`http://127.0.0.1:${port}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': inject('temporalNamespace') },
        body: JSON.stringify(Payloads.toObject(Payloads.create(scheduled ?? {}), { bytes: String })),
      });
      expect(response.status).toBe(200);
      const decoded = Payloads.fromObject(JSON.parse(await response.text()) as object);
      const input = JSON.parse(Buffer.from(decoded.payloads[0]?.data ?? []).toString()) as {
        request: { prompt: unknown[] };
      };
      expect(input.request.prompt).toEqual([
        { role: 'system', content: SYSTEM },
        { role: 'user', content: [{ type: 'text', text: PROMPT }] },
      ]);

      // The Temporal CLI, pointed at the endpoint, shows the history decoded; without it, it cannot.
      const cli = process.env.TEMPORAL_CLI_PATH ?? 'temporal';
      const show = (extra: string[]) =>
        execFileAsync(
          cli,
          [
            'workflow',
            'show',
            '--workflow-id',
            answered.workflowId,
            '--address',
            inject('temporalAddress'),
            '--namespace',
            inject('temporalNamespace'),
            '--output',
            'json',
            ...extra,
          ],
          { maxBuffer: 16 * 1024 * 1024 },
        );
      const withEndpoint = historyFromJSON(
        JSON.parse((await show(['--codec-endpoint', `http://127.0.0.1:${port}`])).stdout),
      );
      expect(inRawHistory(withEndpoint, PROMPT)).toBe(true);
      expect(inRawHistory(withEndpoint, OUTPUT)).toBe(true);
      const without = historyFromJSON(JSON.parse((await show([])).stdout));
      expect(inRawHistory(without, PROMPT)).toBe(false);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
