import { writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../../activities/providers.js';
import { resolveDataDir } from '../../worker/config.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { fail, ok, rateLimited, startLoopbackProvider } from '../../worker/loopback/index.js';
import type { LoopbackProvider } from '../../worker/loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import type { ModelCallInput } from '../../workflows/call-types.js';
import { callReport } from '../call-report.js';
import { readCallHistory } from '../history-reader.js';
import { startModelCall } from '../model-call-client.js';
import { describeReport } from './history.js';

export interface DemoOptions {
  keep: boolean;
  out?: (line: string) => void;
}

const DEMO_MODEL = 'flaky';

/** The demo call: one backend on the loopback provider, a plan of two waits, a deadline of two minutes. */
export const DEMO_CALL: ModelCallInput = {
  model: `loopback:${DEMO_MODEL}`,
  system: 'You are a concise assistant.',
  prompt: 'In one sentence: why should a model call survive a worker crash?',
  retry: { waits: [250, 500], deadlineInMs: 120_000, reserveMs: 10_000 },
};

/**
 * `model-retry demo`: an embedded Temporal dev server, an in-process worker and a flaky provider on loopback.
 * One durable model call meets a 502, then a 429 with `retry-after: 1`, and recovers; its attempt timeline is
 * printed and its history exported. Everything it starts is stopped before it returns (unless `--keep`).
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dataDir = resolve(resolveDataDir());
  out(
    `Starting an embedded Temporal dev server (SQLite: ${join(dataDir, 'demo.sqlite')}) and a flaky provider ...`,
  );
  let server: DevServer | undefined;
  let lp: LoopbackProvider | undefined;
  let connection: NativeConnection | undefined;
  try {
    [server, lp] = await Promise.all([
      startDevServer({ dbFilename: join(dataDir, 'demo.sqlite'), ui: options.keep }),
      startLoopbackProvider(),
    ]);
    lp.script(DEMO_MODEL, [
      fail(502, { message: 'upstream overloaded' }),
      rateLimited(1),
      ok(
        'Because the turn it belongs to has already paid for every step before it: a crash should cost a retry, not the turn.',
        {
          usage: { inputTokens: 31, outputTokens: 24 },
        },
      ),
    ]);
    connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = `model-retry-demo-${Date.now()}`;
    const worker = await createModelRetryWorker({
      connection,
      namespace: server.namespace,
      taskQueue,
      shutdownGraceMs: 1000,
      deps: {
        providers: createProviderRegistry({
          loopback: { type: 'openai-compatible', baseURL: lp.openaiBaseURL },
        }),
      },
    });
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const client = server.env.client;
    out(
      `Calling ${DEMO_CALL.model} durably (workflow ${workflowId}), plan: waits 250, 500 ms; deadline 2 min ...`,
    );
    const history = await worker.runUntil(async () => {
      const handle = await startModelCall(client, DEMO_CALL, { taskQueue, workflowId });
      await handle.result();
      return handle.fetchHistory();
    });
    out('');
    for (const line of describeReport(callReport(workflowId, readCallHistory(history)))) out(line);
    const exportPath = join(dataDir, `${workflowId}.history.json`);
    writeFileSync(exportPath, historyToJSON(history));
    out('');
    out(
      `The provider saw ${lp.requestCount(DEMO_MODEL)} requests; the history has ${history.events?.length ?? 0} events.`,
    );
    out(`History exported to ${exportPath}`);
    out(
      `Read it again, without any server: node bin/model-retry.js history --file ${relative(process.cwd(), exportPath)}`,
    );
    if (options.keep) {
      out(`Temporal Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`);
      out(`Server address: ${server.address}. Press Ctrl-C to stop.`);
      await new Promise<void>((done) => process.once('SIGINT', () => done()));
    }
    return 0;
  } finally {
    await connection?.close();
    await lp?.close();
    await server?.stop();
  }
}
