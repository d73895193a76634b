import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { workflowsPath } from '../../worker/worker.js';
import { leakReport, sweepHistories } from './secret-scan.js';
import { leakNeedles, makeTestSecrets } from './secrets.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../../client/connection-options.js';
import { startTestServer, testServerKind } from './test-server.js';
import { quietBundleLogger } from './quiet.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
  }
}

/**
 * One real Temporal server for the whole run (the dev server; a cluster on PostgreSQL where the project's env
 * says `MODEL_RETRY_TEST_SERVER=cluster`), and the workflow bundle built once. Test files
 * connect to it by address and start their own workers, each on its own task queue. The run's test credentials
 * are made here too (`inject('testSecrets')`), and at the end every history on the server is scanned for them.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-test-'));
  const [server, bundle] = await Promise.all([
    startTestServer({ kind: testServerKind(project.config.env), dbFilename: join(dir, 'test.sqlite') }),
    bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietBundleLogger }),
  ]);
  const workflowBundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  project.provide('workflowBundlePath', workflowBundlePath);
  const secrets = makeTestSecrets();
  project.provide('testSecrets', secrets);
  return async () => {
    await finalSweep(server.address, server.namespace, leakNeedles(secrets));
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Every workflow run of the integration run, scanned for the test credentials: catches what the per-file
 * sweeps (`no-secrets-setup.ts`) could not see yet. A teardown cannot fail a test, so a leak sets the exit code.
 */
async function finalSweep(address: string, namespace: string, needles: string[]): Promise<void> {
  const connection = await Connection.connect({ address, channelArgs: LARGE_MESSAGE_CHANNEL_ARGS });
  try {
    const { scanned, leaks } = await sweepHistories(new Client({ connection, namespace }), needles);
    if (leaks.length > 0) {
      console.error(`\nNO-SECRETS SWEEP FAILED over ${scanned} histories:\n${leakReport(leaks)}\n`);
      process.exitCode = 1;
    }
  } finally {
    await connection.close();
  }
}
