import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../worker/dev-server.js';
import { workflowsPath } from '../../worker/worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
  }
}

/**
 * One real Temporal dev server for the whole integration run, and the workflow bundle built once. Test files
 * connect to it by address and start their own workers, each on its own task queue.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-test-'));
  const [server, bundle] = await Promise.all([
    startDevServer({ dbFilename: join(dir, 'test.sqlite') }),
    bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietLogger }),
  ]);
  const workflowBundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  project.provide('workflowBundlePath', workflowBundlePath);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

const noop = () => undefined;
const quietLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: console.warn,
  error: console.error,
  log: noop,
};
