import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../cli/call-outcome.js';
import type { TurnOutcome } from '../../client/agent-turn-client.js';
import { ok, toolCall } from '../../loopback/index.js';
import { runCli } from '../harness/cli.js';
import { useFixture } from '../harness/fixture.js';

describe('model-retry call and turn with --budget-tokens, and history showing the budget stop', () => {
  const { fx, env } = useFixture();

  it('call stops `budget` after a billed failed attempt (exit 1), and history says why and what was spent', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('', { usage: { inputTokens: 100, outputTokens: 150 } }), ok('never sent')]);
    const args = [
      'call',
      '--model',
      m.name,
      '--prompt',
      'hi',
      '--waits',
      '10,10',
      '--max-output-tokens',
      '200',
    ];
    const { code, stdout, stderr } = await runCli([...args, '--budget-tokens', '400', '--json'], env);
    expect(code, stderr).toBe(1);
    const out = JSON.parse(stdout) as CallOutcome;
    expect(out).toMatchObject({ status: 'failed', stopReason: 'budget', spent: { totalTokens: 250 } });
    expect(out.attempts).toHaveLength(1);
    expect(fx.lp.requestCount(m.id)).toBe(1);

    const history = await runCli(['history', out.workflowId], env);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(`${out.workflowId}: failed (budget)`);
    expect(history.stdout).toMatch(/stopped by its budget: .*`budget.maxTotalTokens` \(400\): spent 250/);
    expect(history.stdout).toContain(
      'Spent (as the budget counts it): 250 tokens (100 input + 150 output), 0 USD',
    );
  });

  it('turn ends `budget` (stopped, exit 1) when its second model call would pass --budget-tokens', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      toolCall('calculator', { expression: '2 + 2' }, { usage: { inputTokens: 300, outputTokens: 100 } }),
      ok('never sent'),
    ]);
    const { code, stdout, stderr } = await runCli(
      ['turn', '--model', m.name, '--prompt', '2 + 2?', '--tool', 'calculator', '--max-output-tokens', '100']
        // 400 spent by step 1; step 2's worst case (its input estimate + 100) passes 450.
        .concat(['--budget-tokens', '450', '--json']),
      env,
    );
    expect(code, stderr).toBe(1);
    const out = JSON.parse(stdout) as TurnOutcome;
    expect(out).toMatchObject({ status: 'stopped', stopReason: 'budget', spent: { totalTokens: 400 } });
    expect(out.steps?.map((s) => s.attempts.length)).toEqual([1, 0]);
  });
});
