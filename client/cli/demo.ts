import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { resolveDataDir } from '../../worker/config.js';
import { startDevServer } from '../../worker/dev-server.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import { harnessWorkflow } from '../../workflows/index.js';
import { formatHistory } from '../history-format.js';

export interface DemoOptions {
  keep: boolean;
  out?: (line: string) => void;
}

/**
 * `model-retry demo`: an embedded dev server, an in-process worker and one real workflow, whose event
 * history is printed and exported. Everything it starts is stopped before it returns.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dataDir = resolve(resolveDataDir());
  out(`Starting an embedded Temporal dev server (SQLite: ${join(dataDir, 'demo.sqlite')}) ...`);
  const server = await startDevServer({ dbFilename: join(dataDir, 'demo.sqlite'), ui: options.keep });
  let connection: NativeConnection | undefined;
  try {
    connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = `model-retry-demo-${Date.now()}`;
    const worker = await createModelRetryWorker({
      connection,
      namespace: server.namespace,
      taskQueue,
      shutdownGraceMs: 1000,
    });
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const client = server.env.client;
    const events = await worker.runUntil(async () => {
      out(`Running workflow ${workflowId}: a 300 ms durable timer, then an activity ...`);
      const handle = await client.workflow.start(harnessWorkflow, {
        taskQueue,
        workflowId,
        args: [{ message: 'hello from model-retry', waitMs: 300 }],
      });
      const result = await handle.result();
      out(`Result: ${result.echoed} (waited ${result.waitedMs} ms)`);
      return (await handle.fetchHistory()).events ?? [];
    });
    out('');
    out(`Event history of ${workflowId}:`);
    for (const line of formatHistory(events)) out(`  ${line}`);
    const exportPath = join(dataDir, `${workflowId}.history.json`);
    writeFileSync(exportPath, historyToJSON({ events }));
    out('');
    out(`History exported to ${exportPath}`);
    if (options.keep) {
      out(`Temporal Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`);
      out(`Server address: ${server.address}. Press Ctrl-C to stop.`);
      await new Promise<void>((done) => process.once('SIGINT', () => done()));
    }
    return 0;
  } finally {
    await connection?.close();
    await server.stop();
  }
}
