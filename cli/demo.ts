import { writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../activities/providers/registry.js';
import { resolveDataDir } from '../worker/config.js';
import { startDevServer } from '../worker/dev-server.js';
import type { DevServer } from '../worker/dev-server.js';
import { fail, ok, rateLimited, startLoopbackProvider, toolCall } from '../loopback/index.js';
import type { LoopbackProvider } from '../loopback/index.js';
import { createModelRetryWorker } from '../worker/worker.js';
import { tracingFromEnv } from '../worker/tracing.js';
import type { AgentTurnInput } from '../common/turn.js';
import {
  createDataConverter,
  describePayloadSettings,
  payloadSettingsFromEnv,
} from '../payloads/data-converter.js';
import { startAgentTurn } from '../client/agent-turn-client.js';
import { fetchDecodedHistory } from '../client/decode-history.js';
import { callReport } from '../client/call-report.js';
import { readCallHistory } from '../client/history-reader.js';
import { describeReport } from './history.js';
import { printStream } from './stream-print.js';

export interface DemoOptions {
  keep: boolean;
  out?: (line: string) => void;
  /** Where the streamed answer goes as it arrives. @default process.stdout */
  write?: (text: string) => void;
}

const DEMO_MODEL = 'flaky';

/**
 * The demo turn: one backend on the loopback provider, the built-in calculator tool, a plan of two waits for
 * each model call, and a deadline of two minutes for the whole turn.
 */
export const DEMO_TURN: AgentTurnInput = {
  model: `loopback:${DEMO_MODEL}`,
  system: 'You are a concise assistant. Use the calculator for arithmetic.',
  prompt: 'What is 17 × 23, and why should an agent turn survive a provider outage?',
  tools: ['calculator'],
  retry: { waits: [250, 500] },
  deadlineInMs: 120_000,
  reserveMs: 10_000,
  stream: { batchMs: 100 },
};

/**
 * `model-retry demo`: an embedded Temporal dev server, an in-process worker and a flaky provider on loopback.
 * One agent turn calls the calculator tool, then meets a provider outage (a 502, then a 429 with
 * `retry-after: 1`) on its next model call and recovers; its steps and attempt timeline are printed and its
 * history exported. Everything it starts is stopped before it returns (unless `--keep`).
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  // The payload keys and store of the environment, checked before anything starts (as for the worker and CLI).
  const payloads = payloadSettingsFromEnv();
  const dataConverter = createDataConverter(payloads);
  // With OTEL_EXPORTER_OTLP_ENDPOINT set, the turn's spans go there (client, workflow, calls, attempts).
  const tracing = tracingFromEnv();
  const plugins = tracing ? [tracing.plugin] : [];
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
    // Step 1 asks for the calculator; then the provider has an outage (a 502, then a 429 with retry-after)
    // exactly when step 2 asks it for the final answer.
    lp.script(DEMO_MODEL, [
      toolCall('calculator', { expression: '17 * 23' }, { usage: { inputTokens: 48, outputTokens: 12 } }),
      fail(502, { message: 'upstream overloaded' }),
      rateLimited(1),
      ok(
        '17 × 23 = 391. A turn has already paid for every step before the outage: an outage should cost a wait, not the turn.',
        { usage: { inputTokens: 73, outputTokens: 29 }, chunkDelayMs: 40 },
      ),
    ]);
    connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = `model-retry-demo-${Date.now()}`;
    const worker = await createModelRetryWorker({
      connection,
      namespace: server.namespace,
      taskQueue,
      shutdownGraceMs: 1000,
      dataConverter,
      plugins,
      deps: {
        providers: createProviderRegistry({
          loopback: { type: 'openai-compatible', baseURL: lp.openaiBaseURL },
        }),
      },
    });
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const client = new Client({
      connection: server.env.connection,
      namespace: server.namespace,
      dataConverter,
      plugins,
    });
    const payloadLine = describePayloadSettings(payloads);
    if (payloadLine) out(`Payloads: ${payloadLine}.`);
    out(
      `Running an agent turn on ${String(DEMO_TURN.model)} with the calculator tool (workflow ${workflowId}); ` +
        'each model call retries after 250, 500 ms; the turn has a deadline of 2 min ...',
    );
    const write = options.write ?? ((text: string) => void process.stdout.write(text));
    let answering = false;
    const { raw, history, result } = await worker.runUntil(async () => {
      const handle = await startAgentTurn(client, DEMO_TURN, { taskQueue, workflowId });
      // The final answer streams: it is printed as the provider sends it, after the outage is over.
      const printer = printStream(
        client,
        workflowId,
        {
          write: (text: string) => {
            if (!answering) write('\nAnswer: ');
            answering = true;
            write(text);
          },
        },
        (error) => out(`(streaming stopped: ${String(error)})`),
      );
      const turn = await handle.result();
      await printer.end(turn.text);
      return { raw: await handle.fetchHistory(), history: await fetchDecodedHistory(handle), result: turn };
    });
    out('');
    for (const step of result.steps) {
      for (const tool of step.tools) {
        const reply = result.messages
          .flatMap((m) => (m.role === 'tool' ? m.content : []))
          .find((p) => p.type === 'tool-result' && p.toolCallId === tool.toolCallId);
        const output = reply?.type === 'tool-result' ? reply.output : undefined;
        const said = output && 'value' in output ? String(output.value) : tool.outcome;
        out(
          `step ${step.step}: model call ${step.callId} asked for tool ${tool.name} [${tool.activityId}] -> ${said}`,
        );
      }
    }
    out(`The turn ended after ${result.steps.length} steps (${result.stopReason}); its model attempts:`);
    for (const line of describeReport(callReport(workflowId, readCallHistory(history)))) out(line);
    if (!answering) out(`Answer: ${result.text}`);
    const exportPath = join(dataDir, `${workflowId}.history.json`);
    writeFileSync(exportPath, historyToJSON(raw)); // as the server holds it (encrypted when keys are set)
    out('');
    out(
      `The provider saw ${lp.requestCount(DEMO_MODEL)} requests; the history has ${history.events?.length ?? 0} events.`,
    );
    out(`History exported to ${exportPath}`);
    if (tracing) out(`Spans sent to ${tracing.settings.url} (${tracing.settings.protocol}).`);
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
    await tracing?.shutdown();
    await connection?.close();
    await lp?.close();
    await server?.stop();
  }
}
