import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { encodingFailureConverterPath } from '../../payloads/data-converter.js';
import { workflowsPath } from '../../worker/worker.js';

const noop = () => undefined;

/**
 * The workflow bundle built with the failure converter that encodes messages and stack traces, as a worker with
 * encryption keys bundles it (the run's shared bundle has Temporal's default converter).
 */
export async function buildEncodingWorkflowBundle(): Promise<{ path: string; remove(): void }> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    failureConverterPath: encodingFailureConverterPath(),
    logger: { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error },
  });
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-codec-bundle-'));
  const path = join(dir, 'workflow-bundle.js');
  writeFileSync(path, bundle.code);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
