import { describe, expect, it } from 'vitest';
import type { TurnOutcome } from '../../client/agent-turn-client.js';
import { fail, ok, toolCall } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import { runCli } from '../harness/cli.js';
import { useFixture } from '../harness/fixture.js';

describe('model-retry turn', () => {
  const { fx, env } = useFixture();

  it('runs a turn with a tool call and an outage: exit 0 and one JSON object with steps and attempts', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('calculator', { expression: '12 * 12' }), fail(503), ok('144')]);
    const { code, stdout, stderr } = await runCli(
      [
        'turn',
        '--model',
        m.name,
        '--prompt',
        'What is 12 squared?',
        '--tool',
        'calculator',
        '--waits',
        '10',
        '--deadline',
        '60000',
        '--reserve',
        '5000',
        '--json',
      ],
      env,
    );
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout) as TurnOutcome;
    expect(out).toMatchObject({
      status: 'succeeded',
      stopReason: 'succeeded',
      text: '144',
      runs: 1,
      billed: { attempts: 3 },
    });
    expect(out.workflowId).toMatch(/^agent-turn-[0-9a-f-]{36}$/);
    expect(out.steps?.map((s) => s.tools.map((t) => [t.name, t.outcome]))).toEqual([
      [['calculator', 'succeeded']],
      [],
    ]);
    expect(out.attempts.map((a) => [a.modelCallId, a.outcome])).toEqual([
      ['c1.1', 'succeeded'],
      ['c2.1', 'failed'],
      ['c2.2', 'succeeded'],
    ]);
    const handle = fx.temporal.client.workflow.getHandle(out.workflowId);
    expect(out.attempts).toEqual(await handle.query(attemptsQuery));
  });

  it('prints the answer on stdout and progress on stderr; exit 1 when it stops at max-steps', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('get_time')]);
    const { code, stdout, stderr } = await runCli(
      [
        'turn',
        '--model',
        m.name,
        '--prompt',
        'Time?',
        '--tool',
        'get_time',
        '--max-steps',
        '1',
        '--no-retry',
      ],
      env,
    );
    expect(code, stderr).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/\[c1\.tool\.1\] tool get_time: succeeded/);
    expect(stderr).toMatch(/turn stopped \(max-steps\) after 1 step, 1 model attempt/);
  });

  it('refuses bad input before anything starts: exit 2 naming the flag', async () => {
    const steps = await runCli(['turn', '--model', 'local:x', '--prompt', 'hi', '--max-steps', '0'], env);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain('`--max-steps`');
    const reserve = await runCli(
      ['turn', '--model', 'local:x', '--prompt', 'hi', '--deadline', '1000', '--reserve', '5000'],
      env,
    );
    expect(reserve.code).toBe(2);
    expect(reserve.stderr).toContain('`--reserve`');
    const tool = await runCli(['turn', '--model', 'local:x', '--prompt', 'hi', '--tool', 'bad name'], env);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain('`--tool`');
  });
});
