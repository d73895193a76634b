import { describe, expect, it } from 'vitest';
import { startAgentTurn } from '../../client/index.js';
import { TURN_TOO_LARGE } from '../../common/turn.js';
import { ok, toolCall } from '../../loopback/index.js';
import { runTurn } from '../harness/agent-turn.js';
import { useFixture } from '../harness/fixture.js';
import { settle } from '../harness/settle.js';

describe("an agent turn and the plan's history limit", () => {
  const { fx, worker } = useFixture();

  it('continues as new at a step boundary before its next call could stop `history-limit`', async () => {
    const m = fx.model();
    const steps = [1, 2, 3, 4, 5, 6].map((n) => toolCall('calculator', { expression: `${n} * 7` }));
    fx.lp.script(m.id, [...steps, ok('all counted')]);
    // A limit of 80 events: six steps of a model call and a tool call each do not fit in one run.
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Count in sevens',
      tools: ['calculator'],
      retry: { waits: [10], historyLimit: { events: 80 } },
    });
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.result?.text).toBe('all counted');
    expect(run.history.runIds.length).toBeGreaterThan(1);
  });

  it('a final answer that makes the result too large for Temporal fails AgentTurnTooLarge, never TERMINATED', async () => {
    // The result carries the answer at least three times (text, the last message, the last step): 750 kB of answer
    // is a result over Temporal's 2 MB, which the server used to answer by terminating the run. (The attempt's own
    // answer carries it twice, as `text` and in `content`: 1.5 MB, which it may still record.)
    const m = fx.model();
    fx.lp.script(m.id, [ok('q'.repeat(750_000))]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      { model: m.name, prompt: 'Say a lot' },
      { taskQueue: worker.taskQueue },
    );
    const { failure } = await settle(handle);
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(failure?.type).toBe(TURN_TOO_LARGE);
    expect(failure?.nonRetryable).toBe(true);
    expect(failure?.message).toMatch(/result.*payload store/);
  });
});
