/**
 * `npm run replay:record`: runs every scenario of test/replay/scenarios.ts against a fresh Temporal dev server,
 * a worker in this process and the loopback provider, checks that each ended as expected with nothing lost,
 * and writes its history (Temporal's JSON export, `historyToJSON`) to test/replay/histories/<name>.json.
 * Until the first release, run it whenever workflow code changes on purpose; test/replay/replay.test.ts then
 * replays the new histories. With scenario names as arguments (`npm run replay:record -- drop rounds`), only
 * those are recorded and no other history is touched (once there are users, old histories are kept).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { readTurnHistory, startAgentTurn } from '../../client/agent-turn-client.js';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { createModelRetryWorkers } from '../../worker/worker.js';
import { openBenchContext } from '../harness/lab.js';
import type { ModelRetryWorkers } from '../../worker/worker.js';
import { attemptsQuery } from '../../common/queries.js';
import type { AttemptRecord, ModelCallInput } from '../../common/call.js';
import type { AgentTurnInput } from '../../common/turn.js';
import { REPLAY_SCENARIOS, scenarioWorkflowId } from './scenarios.js';
import type { ReplayScenario } from './scenarios.js';

const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));
const KEY = 'replay-record-loopback-key';

Runtime.install({ logger: new DefaultLogger('ERROR') });

async function main(only: readonly string[]): Promise<void> {
  const unknown = only.filter((name) => !REPLAY_SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    const names = REPLAY_SCENARIOS.map((s) => s.name).join(', ');
    throw new Error(`no scenario named ${unknown.join(', ')} (scenarios: ${names})`);
  }
  const selected = REPLAY_SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name));
  // The lab: a dev server, the workflow bundle (model-retry's workflows as the product bundles them) and the
  // loopback provider; the scenarios' providers are their own.
  const lab = await openBenchContext({ size: 'full', log: () => undefined });
  const { client, native: nativeConnection, lp, namespace } = lab;
  const providers = createProviderRegistry(
    {
      local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'REPLAY_KEY' },
      // Rate limited and watched by fleet health as one backend: the held-while-cooling scenario's.
      gated: {
        type: 'openai-compatible',
        baseURL: lp.openaiBaseURL,
        apiKeyEnv: 'REPLAY_KEY',
        health: { scope: 'provider' },
        limits: { requestsPerSecond: 50 },
      },
    },
    { env: { REPLAY_KEY: KEY } },
  );
  const startWorker = async (taskQueue: string) => {
    const worker = await createModelRetryWorkers({
      connection: nativeConnection,
      namespace,
      taskQueue,
      workflowBundle: { codePath: lab.bundlePath },
      deps: { providers },
      // Short, so that the worker-shutdown scenario cuts its slow request short (recorded as WorkerLost).
      shutdownGraceMs: 300,
    });
    return { worker, done: worker.run() };
  };
  const recorded = new Set<string>();
  try {
    mkdirSync(HISTORIES_DIR, { recursive: true });
    for (const scenario of selected) {
      const json = await record(scenario, { client, lp, startWorker });
      writeFileSync(`${HISTORIES_DIR}${scenario.name}.json`, json + '\n');
      recorded.add(`${scenario.name}.json`);
      console.log(`recorded ${scenario.name}`);
    }
    for (const file of only.length > 0 ? [] : readdirSync(HISTORIES_DIR)) {
      if (file.endsWith('.json') && !recorded.has(file)) {
        rmSync(`${HISTORIES_DIR}${file}`);
        console.log(`removed ${file} (no such scenario any more)`);
      }
    }
  } finally {
    await lab.close();
  }
}

interface Env {
  client: Client;
  lp: LoopbackProvider;
  startWorker(taskQueue: string): Promise<{ worker: ModelRetryWorkers; done: Promise<void> }>;
}

/** Runs one scenario to its end, checks it, and returns its history as exported JSON. */
async function record(scenario: ReplayScenario, env: Env): Promise<string> {
  const taskQueue = `replay-record-${randomUUID()}`;
  for (const [model, steps] of Object.entries(scenario.scripts)) env.lp.script(model, steps);
  let current = await env.startWorker(taskQueue);
  const options = { taskQueue, workflowId: scenarioWorkflowId(scenario) };
  if (scenario.workflow === 'agentTurnWorkflow') {
    try {
      return await recordTurn(scenario, env, options);
    } finally {
      current.worker.shutdown();
      await current.done;
    }
  }
  await scenario.prepare?.({ client: env.client, lp: env.lp, taskQueue });
  const handle = await startModelCall(env.client, scenario.input as ModelCallInput, options);
  try {
    await scenario.drive?.({
      client: env.client,
      lp: env.lp,
      handle,
      async replaceWorker() {
        current.worker.shutdown();
        await current.done;
        current = await env.startWorker(taskQueue);
      },
    });
    await handle.result().catch(() => undefined);
    const history = await handle.fetchHistory();
    const read = readCallHistory(history);
    await check(scenario, env, read, await handle.query(attemptsQuery));
    return historyToJSON(history);
  } finally {
    current.worker.shutdown();
    await current.done;
  }
}

/** Runs an agent turn scenario (one run: a turn that continues as new has no single history to record). */
async function recordTurn(
  scenario: ReplayScenario,
  env: Env,
  options: { taskQueue: string; workflowId: string },
): Promise<string> {
  const handle = await startAgentTurn(env.client, scenario.input as AgentTurnInput, options);
  await handle.result().catch(() => undefined);
  const read = await readTurnHistory(env.client, options.workflowId);
  if (read.runIds.length !== 1) throw new Error(`scenario ${scenario.name}: ${read.runIds.length} runs`);
  await check(scenario, env, read, await handle.query(attemptsQuery));
  return historyToJSON(await handle.fetchHistory());
}

/** Checks that a scenario ended as expected, its records match its query, and every request is an attempt. */
async function check(
  scenario: ReplayScenario,
  env: Env,
  read: { stopReason?: string; status: string; attempts: readonly AttemptRecord[] },
  queried: unknown,
): Promise<void> {
  const problems: string[] = [];
  if (read.stopReason !== scenario.expected) {
    problems.push(`stopped with ${read.stopReason ?? read.status}, expected ${scenario.expected}`);
  }
  if (JSON.stringify(read.attempts) !== JSON.stringify(queried)) {
    problems.push('the records rebuilt from history differ from the `attempts` query');
  }
  await env.lp.idle();
  for (const model of Object.keys(scenario.scripts)) {
    const attempts = read.attempts.filter((r) => r.model === `local:${model}`).length;
    if (env.lp.requestCount(model) !== attempts) {
      problems.push(`${model}: ${env.lp.requestCount(model)} requests for ${attempts} attempts`);
    }
  }
  if (problems.length > 0) throw new Error(`scenario ${scenario.name}: ${problems.join('; ')}`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
