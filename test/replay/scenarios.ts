import type { Client, WorkflowHandle } from '@temporalio/client';
import { fail, hang, malformed, ok, rateLimited, slow, toolCall } from '../../loopback/index.js';
import type { LoopbackProvider, Step } from '../../loopback/index.js';
import { statusQuery } from '../../common/queries.js';
import type { StopReason } from '../../policy/index.js';
import type { ModelCallInput } from '../../common/call.js';
import type { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import type { AgentTurnInput } from '../../common/turn.js';
import { until } from '../harness/until.js';
import { startModelCall } from '../../client/model-call-client.js';

/** What a scenario's `drive` may do to its call while it runs. */
export interface ScenarioContext {
  client: Client;
  lp: LoopbackProvider;
  handle: WorkflowHandle<typeof modelCallWorkflow>;
  /** Shuts the call's worker down (in-flight work gets a short grace time, then is cancelled), starts another. */
  replaceWorker(): Promise<void>;
}

/**
 * One integration scenario whose history is recorded into `test/replay/histories/<name>.json` by
 * `npm run replay:record` and replayed by `test/replay/replay.test.ts`. Its workflow id is `replay-<name>`;
 * its models are `local:<name>` (and `local:<name>-b` for a second backend).
 */
export interface ReplayScenario {
  name: string;
  /** Provider scripts by model id. */
  scripts: Record<string, Step[]>;
  /** The workflow the scenario runs: a call (`modelCallWorkflow`, the default) or an agent turn. */
  workflow?: 'modelCallWorkflow' | 'agentTurnWorkflow';
  /** A `ModelCallInput`, or an `AgentTurnInput` when `workflow` is `agentTurnWorkflow`. */
  input: ModelCallInput | AgentTurnInput;
  /** How the call ends: a stop reason, or `cancelled`. */
  expected: StopReason;
  /** Acts on the call while it runs (cancel it, take its worker away); calls only. */
  drive?: (ctx: ScenarioContext) => Promise<void>;
  /** Runs before the call starts, on the same worker and task queue (another call that sets the scene); calls only. */
  prepare?: (ctx: { client: Client; lp: LoopbackProvider; taskQueue: string }) => Promise<void>;
}

const local = (id: string) => `local:${id}`;

/**
 * The scenario set of test/integration/model-call-*.test.ts, as far as their histories differ in shape, and an
 * agent turn's (test/integration/agent-turn-*.test.ts).
 */
export const REPLAY_SCENARIOS: readonly ReplayScenario[] = [
  {
    name: 'success-after-failures',
    scripts: { 'success-after-failures': [fail(502), fail(502), ok('hello')] },
    input: { model: local('success-after-failures'), prompt: 'hi', retry: { waits: [10, 30] } },
    expected: 'succeeded',
  },
  {
    name: 'no-plan',
    scripts: { 'no-plan': [fail(502)] },
    input: { model: local('no-plan'), prompt: 'hi' },
    expected: 'attempts-exhausted',
  },
  {
    name: 'bad-request',
    scripts: { 'bad-request': [fail(400)] },
    input: { model: local('bad-request'), prompt: 'hi', retry: { waits: [10, 10] } },
    expected: 'non-retryable',
  },
  {
    name: 'deadline',
    scripts: { deadline: [{ ...fail(502), repeat: true }] },
    input: {
      model: local('deadline'),
      prompt: 'hi',
      retry: { waits: [50, 300], deadlineInMs: 4000, reserveMs: 1000, minAttemptMs: 200 },
    },
    expected: 'deadline',
  },
  {
    name: 'retry-after-429',
    scripts: { 'retry-after-429': [rateLimited(1), ok('after the limit')] },
    input: { model: local('retry-after-429'), prompt: 'hi', retry: { waits: [10] } },
    expected: 'succeeded',
  },
  {
    name: 'advance-a-to-b',
    scripts: { 'advance-a-to-b': [fail(429)], 'advance-a-to-b-b': [ok('from b')] },
    input: {
      model: [local('advance-a-to-b'), local('advance-a-to-b-b')],
      prompt: 'hi',
      retry: { waits: [5000] },
    },
    expected: 'succeeded',
  },
  {
    name: 'drop',
    scripts: {
      drop: [fail(503, { headers: { 'x-should-retry': 'false' } })],
      'drop-b': [fail(502), ok('from b')],
    },
    input: { model: [local('drop'), local('drop-b')], prompt: 'hi', retry: { waits: [10, 10] } },
    expected: 'succeeded',
  },
  {
    name: 'rounds',
    scripts: {
      rounds: [fail(429), fail(429), fail(429)],
      'rounds-b': [fail(429), fail(429), fail(429)],
    },
    input: { model: [local('rounds'), local('rounds-b')], prompt: 'hi', retry: { waits: [10, 20] } },
    expected: 'attempts-exhausted',
  },
  {
    name: 'parse-failure',
    scripts: { 'parse-failure': [malformed()], 'parse-failure-b': [ok('clean')] },
    input: {
      model: [local('parse-failure'), local('parse-failure-b')],
      prompt: 'hi',
      retry: { waits: [10] },
    },
    expected: 'succeeded',
  },
  {
    name: 'cancel-during-wait',
    scripts: { 'cancel-during-wait': [fail(502)] },
    input: { model: local('cancel-during-wait'), prompt: 'hi', retry: { waits: [60_000] } },
    expected: 'cancelled',
    async drive({ handle }) {
      await until('the wait', async () =>
        (await handle.query(statusQuery))?.state === 'waiting' ? true : undefined,
      );
      await handle.cancel();
    },
  },
  {
    name: 'cancel-during-request',
    scripts: { 'cancel-during-request': [hang()] },
    input: { model: local('cancel-during-request'), prompt: 'hi', retry: { waits: [10] } },
    expected: 'cancelled',
    async drive({ handle, lp }) {
      await lp.waitForRequests(1, 'cancel-during-request');
      await handle.cancel();
    },
  },
  {
    name: 'worker-shutdown-mid-request',
    scripts: { 'worker-shutdown-mid-request': [slow(30_000, ok('never')), ok('from the next worker')] },
    input: { model: local('worker-shutdown-mid-request'), prompt: 'hi', retry: { waits: [10] } },
    expected: 'succeeded',
    async drive({ lp, replaceWorker }) {
      await lp.waitForRequests(1, 'worker-shutdown-mid-request');
      await replaceWorker();
    },
  },
  {
    name: 'turn-tool-and-502',
    workflow: 'agentTurnWorkflow',
    scripts: {
      'turn-tool-and-502': [toolCall('calculator', { expression: '6 * 7' }), fail(502), ok('It is 42.')],
    },
    input: {
      model: local('turn-tool-and-502'),
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
      retry: { waits: [10] },
    },
    expected: 'succeeded',
  },
  {
    name: 'stream-after-502',
    scripts: {
      'stream-after-502': [fail(502), ok(undefined, { chunks: ['one ', 'two ', 'three'], chunkDelayMs: 30 })],
    },
    input: {
      model: local('stream-after-502'),
      prompt: 'hi',
      stream: { batchMs: 10 },
      retry: { waits: [10] },
    },
    expected: 'succeeded',
  },
  {
    name: 'stream-interrupted',
    scripts: {
      'stream-interrupted': [
        ok(undefined, { chunks: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 30, cutAfterChunks: 3 }),
      ],
    },
    input: {
      model: local('stream-interrupted'),
      prompt: 'hi',
      stream: { batchMs: 10 },
      retry: { waits: [10] },
    },
    expected: 'stream-interrupted',
  },
  {
    // The recording's providers: `gated` is rate limited and fleet health watches it as one backend.
    name: 'held-while-cooling',
    scripts: { 'held-while-cooling-b': [ok('from b')] },
    input: {
      model: ['gated:held-while-cooling', local('held-while-cooling-b')],
      prompt: 'hi',
      retry: { waits: [10] },
    },
    expected: 'succeeded',
    // Another call's 429 with a retry-after opens `gated` in the worker's copy: the scenario's check finds it
    // cooling, and its first attempt is held (runs on the call's queue, sends nothing, fails CoolingDown).
    async prepare({ client, lp, taskQueue }) {
      lp.script('held-while-cooling-opener', [rateLimited(600)]);
      const input = { model: 'gated:held-while-cooling-opener', prompt: 'hi', retry: { maxAttempts: 1 } };
      const opener = await startModelCall(client, input, { taskQueue });
      await opener.result().catch(() => undefined);
    },
  },
];

/** The workflow id a scenario's call runs under. */
export function scenarioWorkflowId(scenario: ReplayScenario): string {
  return `replay-${scenario.name}`;
}
