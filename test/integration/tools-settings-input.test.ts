import { randomUUID } from 'node:crypto';
import { tool } from 'ai';
import { z } from 'zod';
import { describe, expect, inject, it } from 'vitest';
import type { CallOutcome } from '../../cli/call-outcome.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { firstPayload } from '../../client/history-events.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok, toolCall } from '../../loopback/index.js';
import type { ModelCallInput } from '../../common/call.js';
import { InvalidModelCallInputError } from '../../common/call-input/call-input.js';
import { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { agentTurnWorkflow } from '../../workflows/turn/agent-turn.js';
import { InvalidAgentTurnInputError } from '../../common/turn-input.js';
import { settle } from '../harness/settle.js';
import { runCli } from '../harness/cli.js';
import { finishCall, runCall } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
type SentTool = { type: string; function: { name: string; description?: string; parameters: unknown } };

/**
 * `tools` and `settings` where users meet them: the AI SDK's record of tools is taken (converted to plain JSON
 * before it crosses Temporal) or refused at start; a bad setting is refused by the client and the CLI before
 * anything starts, and fails a workflow that gets it anyway at once (never an `Unknown` attempt, retried).
 */
describe('tools and settings are checked before anything starts', () => {
  const { fx, worker } = useFixture();
  const notStarted = async (workflowId: string) =>
    expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
  const cliEnv = () => ({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    MODEL_RETRY_TASK_QUEUE: worker.taskQueue,
  });

  it("takes the AI SDK's tools as generateText users write them (a zod schema), and the provider gets the JSON Schema", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('weather', { city: 'Paris' })]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'weather in Paris?',
      tools: {
        weather: tool({ description: 'the weather in a city', inputSchema: z.object({ city: z.string() }) }),
      },
      retry: { waits: [10] },
    });
    expect(run.result?.output.toolCalls).toMatchObject([{ name: 'weather', args: '{"city":"Paris"}' }]);
    const sent = (fx.lp.requests(m.id)[0]?.body as { tools: SentTool[] }).tools;
    expect(sent).toMatchObject([
      {
        type: 'function',
        function: { name: 'weather', description: 'the weather in a city', parameters: { ...CITY } },
      },
    ]);
    // The workflow's input in history is our plain list, not the zod object's insides.
    const started = run.history.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(firstPayload<ModelCallInput>(started?.input)?.tools).toEqual([
      {
        type: 'function',
        name: 'weather',
        description: 'the weather in a city',
        inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...CITY },
      },
    ]);
  });

  it('refuses a tool with execute at start, naming the field and the fix; nothing starts', async () => {
    const m = fx.model();
    const workflowId = `tool-execute-${randomUUID()}`;
    const start = startModelCall(
      fx.temporal.client,
      {
        model: m.name,
        prompt: 'weather?',
        tools: {
          weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => 'sunny' }),
        },
      },
      { taskQueue: worker.taskQueue, workflowId },
    );
    await expect(start).rejects.toBeInstanceOf(InvalidModelCallInputError);
    await expect(start).rejects.toThrow(
      /^`tools\.weather\.execute`: a model call asks the model and returns its tool calls/,
    );
    await notStarted(workflowId);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it("converts the AI SDK's record in a workflow started without the client, and fails one whose schema went through JSON at once", async () => {
    const good = fx.model();
    fx.lp.script(good.id, [ok('sunny')]);
    const taken = await finishCall(
      fx,
      await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue: worker.taskQueue,
        workflowId: `record-tools-${randomUUID()}`,
        args: [
          {
            model: good.name,
            prompt: 'weather?',
            tools: { weather: { description: 'w', inputSchema: CITY } },
          },
        ],
      }),
    );
    expect(taken.result?.output.text).toBe('sunny');
    const sent = (fx.lp.requests(good.id)[0]?.body as { tools: SentTool[] }).tools;
    expect(sent).toMatchObject([{ function: { name: 'weather', parameters: CITY } }]);

    const bad = fx.model();
    const zodThroughJson = JSON.parse(JSON.stringify({ inputSchema: z.object({ city: z.string() }) })) as {
      inputSchema: unknown;
    };
    const refused = await finishCall(
      fx,
      await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue: worker.taskQueue,
        workflowId: `zod-json-${randomUUID()}`,
        args: [{ model: bad.name, prompt: 'weather?', tools: { weather: zodThroughJson } }],
      }),
    );
    expect(refused.failure).toMatchObject({ type: 'InvalidModelCallInput', nonRetryable: true });
    expect(refused.failure?.message).toMatch(/^`tools\.weather\.inputSchema`: is a zod schema/);
    expect((refused.history.events ?? []).map(eventTypeName)).not.toContain('ActivityTaskScheduled');
    expect(fx.lp.requestCount(bad.id)).toBe(0);
  });

  it('refuses `stopSequences: "END"` in startModelCall; a workflow that gets it anyway fails at once, nothing sent', async () => {
    const m = fx.model();
    const workflowId = `stop-string-${randomUUID()}`;
    const input = { model: m.name, prompt: 'hi', settings: { stopSequences: 'END' as unknown as string[] } };
    await expect(
      startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue, workflowId }),
    ).rejects.toThrow(
      /^`settings\.stopSequences`: must be an array of strings: write `stopSequences: \["END"\]`/,
    );
    await notStarted(workflowId);
    const run = await finishCall(
      fx,
      await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue: worker.taskQueue,
        workflowId,
        args: [{ ...input, retry: { waits: [10, 10] } }],
      }),
    );
    expect(run.failure).toMatchObject({ type: 'InvalidModelCallInput', nonRetryable: true });
    expect(run.failure?.message).toMatch(/^`settings\.stopSequences`: must be an array of strings/);
    const types = (run.history.events ?? []).map(eventTypeName);
    expect(types).not.toContain('ActivityTaskScheduled');
    expect(types).not.toContain('WorkflowTaskFailed');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('model-retry call passes the settings flags to the provider, and refuses one out of range with exit 2, naming the flag', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('short')]);
    const good = await runCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'hi',
        '--no-retry',
        '--json',
        '--max-output-tokens',
        '50',
      ].concat(['--temperature', '0.5', '--stop', 'END', '--stop', 'STOP', '--seed', '7']),
      cliEnv(),
    );
    expect(good.code, good.stderr).toBe(0);
    expect((JSON.parse(good.stdout) as CallOutcome).output?.text).toBe('short');
    expect(fx.lp.requests(m.id)[0]?.body).toMatchObject({
      max_tokens: 50,
      temperature: 0.5,
      stop: ['END', 'STOP'],
      seed: 7,
    });

    const workflowId = `cli-temperature-${randomUUID()}`;
    const bad = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--temperature', '5', '--workflow-id', workflowId],
      cliEnv(),
    );
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toMatch(/`--temperature`: must be a number from 0 to 2 \(got 5\)/);
    await notStarted(workflowId);
    const words = await runCli(
      ['turn', '--model', m.name, '--prompt', 'hi', '--max-output-tokens', 'lots'],
      cliEnv(),
    );
    expect(words.code).toBe(2);
    expect(words.stderr).toMatch(/`--max-output-tokens` must be a number, not "lots"/);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('an agent turn: startAgentTurn refuses a bad setting; a turn workflow that gets it anyway fails at once', async () => {
    const m = fx.model();
    const workflowId = `turn-settings-${randomUUID()}`;
    const input = { model: m.name, prompt: 'hi', settings: { maxOutputTokens: 0 } };
    const start = startAgentTurn(fx.temporal.client, input, { taskQueue: worker.taskQueue, workflowId });
    await expect(start).rejects.toBeInstanceOf(InvalidAgentTurnInputError);
    await expect(start).rejects.toThrow(
      /^`settings\.maxOutputTokens`: must be a whole number of tokens, at least 1/,
    );
    await notStarted(workflowId);
    const handle = await fx.temporal.client.workflow.start(agentTurnWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId,
      args: [input],
    });
    const run = await settle(handle);
    const types = ((await handle.fetchHistory()).events ?? []).map(eventTypeName);
    expect(types).not.toContain('ActivityTaskScheduled');
    expect(types).not.toContain('WorkflowTaskFailed');
    expect(run.failure).toMatchObject({ type: 'InvalidAgentTurnInput', nonRetryable: true });
    expect(run.failure?.message).toMatch(/^`settings\.maxOutputTokens`/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
