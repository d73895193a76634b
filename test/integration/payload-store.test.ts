import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import protoPackage from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallReport } from '../../client/call-report.js';
import { fail, ok } from '../../loopback/index.js';
import { createDataConverter, payloadSettingsFromEnv } from '../../payloads/data-converter.js';
import type { PayloadSettings } from '../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../payloads/payload-store.js';
import type { PayloadStore } from '../../payloads/payload-store.js';
import { runCli } from '../harness/cli.js';
import { buildEncodingWorkflowBundle } from '../harness/codec-bundle.js';
import { modelCallFixture, runCall } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';
import { startLocalS3 } from '../harness/s3.js';
import type { LocalS3 } from '../harness/s3.js';
import { connectTestTemporal } from '../harness/temporal.js';
import type { TestTemporal } from '../harness/temporal.js';
import { key, keyEntry } from '../unit/payloads/helpers.js';

type History = temporal.api.history.v1.IHistory;
const HistoryProto = protoPackage.temporal.api.history.v1.History;
const bytesOf = (history: History) => HistoryProto.encode(history).finish().length;

/** A 200 KB prompt of varied text (a long document pasted into a conversation). */
const PROMPT = Array.from(
  { length: 4000 },
  (_, i) => `Paragraph ${i}: the supplier delivers batch ${i * 7} by day ${i % 28}. `,
)
  .join('')
  .slice(0, 200 * 1024);
const SAMPLE = PROMPT.slice(100_000, 100_080);
if (PROMPT.length !== 200 * 1024) throw new Error('the test prompt must be 200 KB');
const ATTEMPTS = 4;

describe('prompts stored once: large strings go to a payload store, the history carries references', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-payload-store-'));
  let plain: TestTemporal;
  let s3: LocalS3;
  let bundle: { path: string; remove(): void };
  const raw: { workflowId: string; history: History }[] = [];

  beforeAll(async () => {
    [plain, s3, bundle] = await Promise.all([
      connectTestTemporal(),
      startLocalS3(),
      buildEncodingWorkflowBundle(),
    ]);
  });
  afterAll(async () => {
    await plain?.close();
    await s3?.close();
    bundle?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A call with the 200 KB prompt whose first three attempts fail, on a worker and a client configured alike. */
  async function longPromptCall(settings: () => PayloadSettings, encrypted: boolean) {
    const fx = await modelCallFixture({ dataConverter: createDataConverter(settings()) });
    try {
      const worker = await fx.temporal.startWorker({
        deps: { providers: fx.providers },
        dataConverter: createDataConverter(settings()),
        ...(encrypted ? { workflowBundlePath: bundle.path } : {}),
      });
      const m = fx.model();
      fx.lp.script(m.id, [fail(502), fail(502), fail(502), ok('Delivered on time.')]);
      const run: CallRun = await runCall(fx, worker, {
        model: m.name,
        system: 'Answer in one sentence.',
        prompt: PROMPT,
        retry: { waits: [10, 10, 10] },
      });
      await worker.stop();
      const history = await plain.client.workflow.getHandle(run.workflowId).fetchHistory();
      raw.push({ workflowId: run.workflowId, history });
      // The provider got the whole prompt on every attempt.
      const sent = fx.lp
        .requests(m.id)
        .map((r) => (r.body as { messages: { content: string }[] }).messages[1]?.content);
      expect(sent).toEqual(Array.from({ length: ATTEMPTS }, () => PROMPT));
      return {
        run,
        history,
        replay: () =>
          replayAll([{ workflowId: run.workflowId, history }], {
            dataConverter: createDataConverter(settings()),
            ...(encrypted ? { workflowBundlePath: bundle.path } : {}),
          }),
      };
    } finally {
      await fx.close();
    }
  }

  /** History bytes per attempt stay far below the prompt's size, and the store holds the prompt once. */
  async function expectStoredOnce(run: CallRun, history: History, store: PayloadStore) {
    expect(run.result?.output.text).toBe('Delivered on time.');
    expect(run.records).toHaveLength(ATTEMPTS);
    // What the workflow saw (decoded) repeats the prompt in its input and in every attempt's input...
    expect(bytesOf(run.history)).toBeGreaterThan((ATTEMPTS + 1) * PROMPT.length);
    // ...while the history the server keeps carries a reference instead.
    const perAttempt = bytesOf(history) / ATTEMPTS;
    expect(perAttempt).toBeLessThan(PROMPT.length / 20);
    expect(Buffer.from(HistoryProto.encode(history).finish()).includes(Buffer.from(SAMPLE))).toBe(false);
    const names = await store.list();
    expect(names).toHaveLength(1);
    return names;
  }

  it('with a folder store: the prompt is stored once, and `history` reads the attempts back', async () => {
    const folder = join(dir, 'payloads');
    const env = { MODEL_RETRY_PAYLOAD_STORE: folder };
    const { run, history, replay } = await longPromptCall(() => payloadSettingsFromEnv(env), false);
    const [name] = await expectStoredOnce(run, history, new FolderPayloadStore(folder));
    expect(name).toMatch(/^plain\/[0-9a-f]{2}\/[0-9a-f]{64}$/);

    const cli = await runCli(['history', run.workflowId, '--json'], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      ...env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout) as CallReport).attempts).toEqual(run.records);
    const without = await runCli(['history', run.workflowId], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    });
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/no store is configured: set MODEL_RETRY_PAYLOAD_STORE/);
    await replay();
  });

  it('with an S3 store and encryption: stored once, sealed under the key, nothing readable in history or bucket', async () => {
    const k1 = key('k1');
    const env = {
      MODEL_RETRY_PAYLOAD_STORE: `s3://${s3.bucket}/model-retry`,
      MODEL_RETRY_CODEC_KEYS: keyEntry(k1),
      ...s3.env,
    };
    const store = payloadSettingsFromEnv(env).payloadStore as PayloadStore;
    const { run, history, replay } = await longPromptCall(() => payloadSettingsFromEnv(env), true);
    const [name] = await expectStoredOnce(run, history, store);
    expect(name).toMatch(/^key-k1\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    const object = Buffer.from((await store.get(name as string)) ?? []);
    expect(object.length).toBeGreaterThan(PROMPT.length);
    expect(object.includes(Buffer.from(SAMPLE))).toBe(false);
    await replay();
  });
});
