import { describe, expect, it } from 'vitest';
import { ok, toolCall } from '../../loopback/index.js';
import { runTurn } from '../harness/agent-turn.js';
import { useFixture } from '../harness/fixture.js';

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
});
