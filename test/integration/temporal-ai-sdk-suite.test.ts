import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayAll } from '../harness/replay.js';
import {
  bundleSuiteWorkflows,
  embeddingResponse,
  outcome,
  scheduledActivities,
  startSuiteWorker,
  textResponse,
  toolCallResponse,
} from '../harness/temporal-suite.js';
import type { SuiteWorker } from '../harness/temporal-suite.js';
import type { TelemetrySeen } from '../harness/temporal-suite-workflows.js';

type History = temporal.api.history.v1.IHistory;

/**
 * Temporal's own test suite of `@temporalio/ai-sdk` (contrib/ai-sdk/src/__tests__/test-ai-sdk.ts), every test a
 * language or embedding model is responsible for, with `durableModel` where the suite has `TemporalProvider`'s
 * model. The same scripted answers (the AI SDK's mock models in the worker's `mock` provider) reach durableModel's
 * attempts; what changes is the model line and the activity names (`modelRequest` for `invokeModel`).
 *
 * Not ported: the MCP connection-pool tests (reuse, idle eviction, close after execute, opt-out), which test
 * `@temporalio/ai-sdk`'s own MCP activities and not a model; and 'MCP Use' (skipped in the suite itself: it
 * needs a filesystem MCP server from the network).
 */
describe("Temporal's @temporalio/ai-sdk suite on durableModel", () => {
  let code: string;
  let w: SuiteWorker;
  beforeAll(async () => {
    code = await bundleSuiteWorkflows();
    w = await startSuiteWorker(code);
  });
  afterAll(async () => {
    await w?.stop();
  });

  const HELLO = () => [textResponse('Test Haiku')];
  const TOOLS = () => [
    toolCallResponse('getWeather', '{"location":"Tokyo"}'),
    textResponse('Test weather result'),
  ];

  it('Hello world agent responds in haikus', async () => {
    const model = w.provider.script({ generate: HELLO() });
    const handle = await w.start('helloWorldAgent', ['Tell me about recursion in programming.']);
    expect(await outcome(handle)).toEqual({ result: 'Test Haiku' });
    // The instructions reached the model as the system message, the prompt as the user's.
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(model.doGenerateCalls[0]?.prompt.map((m) => m.role)).toEqual(['system', 'user']);
    expect(w.provider.asked.at(-1)).toBe('gpt-4o-mini');
  });

  it('Tools workflow can use AI tools', async () => {
    const model = w.provider.script({ generate: TOOLS() });
    const handle = await w.start('toolsWorkflow', ['What is the weather in Tokyo?']);
    expect(await outcome(handle)).toEqual({ result: 'Test weather result' });
    const activities = await scheduledActivities(handle);
    // At least the model request and getWeather (the suite's `invokeModel` is model-retry's `modelRequest`).
    expect(activities.length).toBeGreaterThanOrEqual(2);
    expect(activities).toContain('getWeather');
    expect(activities.filter((a) => a === 'modelRequest')).toHaveLength(2);
    // The second request carries the tool's result.
    const second = model.doGenerateCalls[1]?.prompt ?? [];
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(JSON.stringify(second[3])).toContain('Sunny with wind.');
  });

  it('Generate object', async () => {
    w.provider.script({
      generate: [
        textResponse(
          '{"recipe":{"name":"Classic Lasagna","ingredients":[],"steps":["Preheat the oven to 375°F (190°C)."]}}',
        ),
      ],
    });
    const handle = await w.start('generateObjectWorkflow', ['Tell me about recursion in programming.']);
    expect(await outcome(handle)).toEqual({ result: 'Classic Lasagna' });
  });

  it('Middleware', async () => {
    w.provider.script({ generate: HELLO() });
    const handle = await w.start('middlewareWorkflow', ['Tell me about recursion in programming.']);
    expect(await outcome(handle)).toEqual({ result: 'Test Haiku' });
  });

  it('Embedding model generates embeddings', async () => {
    w.provider.script({ generate: HELLO() });
    w.provider.scriptEmbeddings([embeddingResponse(['Hello, world!', 'How are you?'])]);
    const handle = await w.start('embeddingWorkflow', [['Hello, world!', 'How are you?']]);
    const run = await outcome<{ count: number; dimensions: number }>(handle);
    // A failure's message says why (a `ModelCallFailed` names each attempt's class and message).
    expect(run.failure, String((run.failure as Error | undefined)?.message)).toBeUndefined();
    expect(run.result).toMatchObject({ count: 2, dimensions: 1536 });
    // At least one attempt, an activity (the suite's `invokeEmbeddingModel` is model-retry's `modelRequest`).
    const activities = await scheduledActivities(handle);
    expect(activities.length).toBeGreaterThanOrEqual(1);
    expect(activities).toContain('modelRequest');
  });

  it("Telemetry: the AI SDK's spans are named by the model without its provider", async () => {
    w.provider.script({ generate: HELLO() });
    const handle = await w.start('telemetryWorkflow', ['Tell me about recursion']);
    const run = await outcome<TelemetrySeen>(handle);
    expect(run.failure).toBeUndefined();
    expect(run.result?.text).toBe('Test Haiku');
    // `@ai-sdk/otel` names generateText's span `invoke_agent <modelId>` and the model call's `chat <modelId>`.
    expect(run.result?.spanNames).toContain('invoke_agent gpt-4o-mini');
    expect(run.result?.spanNames).toContain('chat gpt-4o-mini');
    expect(new Set(run.result?.providers)).toEqual(new Set(['mock']));
  });

  it('MCP tool schema survives activity serialization', async () => {
    const handle = await w.start('mcpSchemaTestWorkflow', []);
    expect(await outcome(handle)).toEqual({
      result: {
        toolName: 'testTool',
        schemaType: 'object',
        hasProperties: true,
        propertyDescription: 'Test parameter',
      },
    });
  });

  describe('captured multi-step histories replay deterministically', () => {
    /** Replays `history` against a bundle built anew (a fresh plugin), as a worker that restarts would. */
    async function replayFresh(workflowId: string, history: History) {
      const fresh = await bundleSuiteWorkflows();
      const dir = mkdtempSync(join(tmpdir(), 'model-retry-temporal-suite-'));
      writeFileSync(join(dir, 'bundle.js'), fresh);
      try {
        await replayAll([{ workflowId, history }], { workflowBundlePath: join(dir, 'bundle.js') });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    it('Captured multi-step tools history replays deterministically', async () => {
      w.provider.script({ generate: TOOLS() });
      const handle = await w.start('toolsWorkflow', ['What is the weather in Tokyo?']);
      expect(await outcome(handle)).toEqual({ result: 'Test weather result' });
      await replayFresh(handle.workflowId, await handle.fetchHistory());
    });

    it('Captured multi-step MCP history replays deterministically', async () => {
      const model = w.provider.script({
        generate: [toolCallResponse('testTool', '{"testParam":"hello"}'), textResponse('Done')],
      });
      const calls = w.mcpCalls.length;
      const handle = await w.start('mcpWorkflow', ['What files do you have? Use your tools.']);
      expect(await outcome(handle)).toEqual({ result: 'Done' });
      // The durable model was offered the MCP tool with its schema, and the tool ran on the MCP server.
      const offered = model.doGenerateCalls[0]?.tools ?? [];
      expect(offered).toMatchObject([
        {
          type: 'function',
          name: 'testTool',
          inputSchema: { properties: { testParam: { type: 'string' } } },
        },
      ]);
      expect(w.mcpCalls.slice(calls)).toEqual([{ name: 'testTool', arguments: { testParam: 'hello' } }]);
      await replayFresh(handle.workflowId, await handle.fetchHistory());
    });
  });
});
