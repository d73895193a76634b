import { describe, expect, it } from 'vitest';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import type { AgentTurnPartial } from '../../common/turn.js';
import { contextTooLong, toolCall } from '../../loopback/index.js';
import { finishTurn } from '../harness/agent-turn.js';
import { useFixture } from '../harness/fixture.js';

describe("an agent turn's failure is bounded like its result", () => {
  const { fx, worker } = useFixture();

  it('a turn with a large conversation whose model call fails ends FAILED with its stop reason, never TERMINATED', async () => {
    // Two steps whose answers carry 680 kB of text each (and a tool call): a conversation of about 1.37 MB, under
    // the turn's 1.5 MB. The third call meets ContextTooLong, the likely failure of a large conversation. Its
    // failure's details carry the conversation the turn added and each step's text again: about 2.7 MB, past
    // Temporal's 2 MB, which the server answered by terminating the run (the stop reason was lost).
    const m = fx.model();
    const big = (c: string) => c.repeat(680_000);
    fx.lp.script(m.id, [
      toolCall('calculator', { expression: '1+1' }, { text: big('a') }),
      toolCall('calculator', { expression: '2+2' }, { text: big('b') }),
      contextTooLong(),
    ]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'Think at length', tools: ['calculator'] },
      { taskQueue: worker.taskQueue },
    );
    const run = await finishTurn(fx, handle);
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(run.failure?.type).toBe(MODEL_CALL_FAILED);
    const details = run.failure?.details?.[0] as ModelCallFailedDetails & { turn: AgentTurnPartial };
    expect(details.stopReason).toBe('non-retryable');
    expect(details.lastDecision.reason).toBe('non-retryable');
    expect(details.attempts.map((a) => a.failure?.class)).toEqual(['ContextTooLong']);
    // What the turn had done, without the bulky parts, and saying what was left out and where to read it.
    const turn = details.turn;
    expect(turn.stopReason).toBe('non-retryable');
    expect(turn.steps.map((s) => [s.step, s.callId, s.stopReason])).toEqual([
      [1, 'c1', undefined],
      [2, 'c2', undefined],
      [3, 'c3', 'non-retryable'],
    ]);
    expect(turn.steps.map((s) => s.attempts.length)).toEqual([1, 1, 1]);
    expect(turn.billed.attempts).toBe(3);
    expect(turn.omitted?.fields).toEqual(expect.arrayContaining(['messages', 'steps[].text']));
    expect(turn.omitted?.bytes).toBeGreaterThan(2_000_000);
    expect(turn.omitted?.readFrom).toMatch(/history/);
    expect(JSON.stringify(details).length).toBeLessThan(2_000_000);
    // The history reader finds the stop reason where it looks for it.
    expect(run.history.status).toBe('failed');
    expect(run.history.stopReason).toBe('non-retryable');
    expect(run.partial?.steps).toHaveLength(3);
  });
});
