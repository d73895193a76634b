import { describe, expect, it } from 'vitest';
import { ok, toolCall } from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { finishTurn, runTurn, toolResults } from '../harness/agent-turn.js';
import { agentTurnWorkflow } from '../../workflows/turn/agent-turn.js';
import { MAX_TURN_PAYLOAD_BYTES } from '../../common/turn-input.js';
import { useFixture } from '../harness/fixture.js';

/** The messages of the provider request `n` (0-based) for model `id`. */
function sentMessages(
  fx: ModelCallFixture,
  id: string,
  n: number,
): { role: string; content?: unknown; tool_call_id?: string }[] {
  const body = fx.lp.requests(id)[n]?.body as {
    messages?: { role: string; content?: unknown; tool_call_id?: string }[];
  };
  return body.messages ?? [];
}

describe('an agent turn calls tools', () => {
  const { fx, worker } = useFixture();

  it('runs one tool call, gives its result to the model, and ends on the final answer', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '6 * 7' }), ok('The answer is 42.')]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
    });
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.result?.text).toBe('The answer is 42.');
    const callId = toolResults(run.result?.messages ?? [])[0]?.toolCallId;
    expect(run.result?.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: callId, toolName: 'calculator', input: { expression: '6 * 7' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: callId,
            toolName: 'calculator',
            output: { type: 'text', value: '42' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'The answer is 42.' }] },
    ]);
    expect(
      run.result?.steps.map((s) => [s.callId, s.tools.map((t) => [t.name, t.activityId, t.outcome])]),
    ).toEqual([
      ['c1', [['calculator', 'c1.tool.1', 'succeeded']]],
      ['c2', []],
    ]);
    expect(run.records.map((r) => r.modelCallId)).toEqual(['c1.1', 'c2.1']);
    const second = sentMessages(fx, m.id, 1);
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: '42' });
    expect(run.result?.usage.inputTokens).toBe(20);
    expect(run.result?.billed.attempts).toBe(2);
    expect(run.status).toMatchObject({ phase: 'stopped', stopReason: 'succeeded', step: 2, runs: 1 });
  });

  it('runs the tool calls of one answer in parallel and returns them in the order asked', async () => {
    const m = fx.model();
    const both: Step = {
      kind: 'ok',
      toolCalls: [
        { name: 'calculator', arguments: { expression: '2 + 3' } },
        { name: 'get_time', arguments: {} },
      ],
    };
    fx.lp.script(m.id, [both, ok('done')]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Add and tell the time',
      tools: ['calculator', 'get_time'],
    });
    expect(run.result?.stopReason).toBe('succeeded');
    // One tool message for the step, its results in the order asked.
    expect(run.result?.messages.filter((msg) => msg.role === 'tool')).toHaveLength(1);
    const results = toolResults(run.result?.messages ?? []);
    expect(results.map((r) => r.toolName)).toEqual(['calculator', 'get_time']);
    expect(results[0]?.output).toEqual({ type: 'text', value: '5' });
    expect(results[1]?.output).toEqual({
      type: 'text',
      value: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    // Both tool activities were scheduled by the same workflow task: neither waited for the other.
    const history = await run.handle.fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityId)).toEqual([
      'c1.tool.1',
      'c1.tool.2',
    ]);
    expect(
      new Set(
        scheduled.map((e) => String(e.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId)),
      ).size,
    ).toBe(1);
    expect(sentMessages(fx, m.id, 1).filter((msg) => msg.role === 'tool')).toHaveLength(2);
  });

  it('retries a failing tool by its own policy, then tells the model it failed', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('fail_tool', { message: 'disk on fire' }), ok('I could not do it.')]);
    const run = await runTurn(fx, worker, { model: m.name, prompt: 'Try', tools: ['fail_tool'] });
    expect(run.result?.stopReason).toBe('succeeded');
    const tool = run.result?.steps[0]?.tools[0];
    expect(tool).toMatchObject({ name: 'fail_tool', outcome: 'error', error: 'disk on fire' });
    expect(run.result?.messages[1]).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-result', toolName: 'fail_tool', output: { type: 'error-text', value: 'disk on fire' } },
      ],
    });
    const history = await run.handle.fetchHistory();
    const failed = (history.events ?? []).find((e) => e.activityTaskFailedEventAttributes);
    const startedId = failed?.activityTaskFailedEventAttributes?.startedEventId;
    const started = (history.events ?? []).find((e) => String(e.eventId) === String(startedId));
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(3);
  });

  it('tells the model about a tool it does not offer, without running anything', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('rm_rf', {}), ok('sorry')]);
    const run = await runTurn(fx, worker, { model: m.name, prompt: 'Try', tools: ['calculator'] });
    expect(run.result?.messages[1]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolName: 'rm_rf', output: { type: 'error-text' } }],
    });
    expect(run.result?.steps[0]?.tools[0]?.outcome).toBe('error');
  });

  it('stops the turn on a fatal tool failure, as non-retryable, keeping what was done', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('fail_tool', { fatal: true, message: 'the ledger is locked' })]);
    const run = await runTurn(fx, worker, { model: m.name, prompt: 'Try', tools: ['fail_tool'] });
    expect(run.failure?.type).toBe('AgentTurnToolFatal');
    expect(run.failure?.message).toContain('the ledger is locked');
    expect(run.partial?.stopReason).toBe('non-retryable');
    expect(run.partial?.steps[0]?.tools[0]?.outcome).toBe('fatal');
    expect(run.status.stopReason).toBe('non-retryable');
  });

  it("stops after maxSteps model calls with `max-steps`, having run the last step's tools", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      toolCall('calculator', { expression: '1+1' }),
      toolCall('calculator', { expression: '2+2' }),
    ]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Loop',
      tools: ['calculator'],
      maxSteps: 2,
    });
    expect(run.result?.stopReason).toBe('max-steps');
    expect(run.result?.steps).toHaveLength(2);
    expect(run.result?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolName: 'calculator', output: { type: 'text', value: '4' } }],
    });
  });

  it('fails at once when the worker has no tool of a name the turn asks for', async () => {
    const m = fx.model();
    const run = await runTurn(fx, worker, { model: m.name, prompt: 'Try', tools: ['no_such_tool'] });
    expect(run.failure?.type).toBe('UnknownTool');
    expect(run.failure?.message).toContain('no_such_tool');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('refuses in the workflow a conversation over the payload limit that reached it without the client check', async () => {
    const m = fx.model();
    const handle = await fx.temporal.client.workflow.start(agentTurnWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: `agent-turn-too-large-${m.id}`,
      args: [{ model: m.name, prompt: 'x'.repeat(MAX_TURN_PAYLOAD_BYTES) }],
    });
    const run = await finishTurn(fx, handle);
    expect(run.failure?.type).toBe('AgentTurnTooLarge');
    expect(run.failure?.message).toMatch(/over the turn limit of 1\.50 MB.*2 MB/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
