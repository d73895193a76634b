import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { ok } from '../../loopback/index.js';
import { createDataConverter } from '../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../payloads/payload-store.js';
import { useTempDir } from '../harness/fixture.js';
import { modelCallFixture } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { settle } from '../harness/settle.js';
import type { ManyMessagesInput } from '../harness/many-messages-workflow.js';

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };

describe('with the payload store on, what stays in the attempt input is still held to 2 MB', () => {
  const dir = useTempDir('model-retry-inline-');
  const converter = () => createDataConverter({ payloadStore: new FolderPayloadStore(join(dir, 'store')) });
  let fx: ModelCallFixture;
  let bundleDir: string;
  let bundlePath: string;

  beforeAll(async () => {
    fx = await modelCallFixture({ dataConverter: converter() });
    const bundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../harness/many-messages-workflow.ts', import.meta.url)),
      logger: quiet,
    });
    bundleDir = mkdtempSync(join(tmpdir(), 'model-retry-inline-bundle-'));
    bundlePath = join(bundleDir, 'bundle.js');
    writeFileSync(bundlePath, bundle.code);
  });
  afterAll(async () => {
    await fx?.close();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  });

  it('an input of thousands of short messages past 2 MB stops `history-limit` naming its size, never sent', async () => {
    const worker = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      dataConverter: converter(),
      workflowBundlePath: bundlePath,
    });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [ok('never asked')]);
      // 6000 messages of about 500 bytes: some 3 MB of JSON, every string far under the store's 2 KB threshold,
      // so the store moves none of it.
      const input: ManyMessagesInput = { model: m.name, count: 6000, text: 'a short chat line. '.repeat(26) };
      const handle = await fx.temporal.client.workflow.start('manyMessagesWorkflow', {
        taskQueue: worker.taskQueue,
        workflowId: `many-messages-${m.id}`,
        args: [input],
      });
      const { failure } = await settle(handle);
      const details = failure?.details?.[0] as ModelCallFailedDetails | undefined;
      expect(details?.stopReason).toBe('history-limit');
      expect(details?.lastDecision.why).toMatch(/attempt's input keeps 3\.\d MB .* 2\.0 MB/);
      expect(details?.lastDecision.why).toContain('MODEL_RETRY_PAYLOAD_STORE_THRESHOLD');
      expect(fx.lp.requestCount(m.id)).toBe(0);
      expect((await handle.describe()).status.name).toBe('FAILED');
    } finally {
      await worker.stop();
    }
  });
});
