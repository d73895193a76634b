import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../cli/call-outcome.js';
import { fail, ok } from '../../loopback/index.js';
import { runCli } from '../harness/cli.js';
import { useFixture, useTempDir } from '../harness/fixture.js';

describe('a call whose history is larger than a gRPC message by default (4 MB)', () => {
  const { fx, env } = useFixture();
  const dir = useTempDir('model-retry-large-');

  it('is followed to its end by `call` and read back by `history`, without losing touch', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(503), fail(503), fail(503), fail(503), ok('made it')]);
    // 1.2 MB of prompt in each of five attempts' inputs: about 6 MB of history, no payload store.
    const promptFile = join(dir, 'prompt.txt');
    writeFileSync(promptFile, 'tell me about retries. '.repeat(52_000));
    const call = await runCli(
      ['call', '--model', m.name, '--prompt-file', promptFile, '--waits', '10,10,10,10', '--json'],
      env,
      120_000,
    );
    expect(call.code, call.stderr).toBe(0);
    const out = JSON.parse(call.stdout) as CallOutcome;
    expect(out.output?.text).toBe('made it');
    expect(out.attempts).toHaveLength(5);

    const history = await runCli(['history', out.workflowId, '--json'], env, 120_000);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stderr).not.toContain('RESOURCE_EXHAUSTED');
    const read = JSON.parse(history.stdout) as { attempts: CallOutcome['attempts'] };
    expect(read.attempts).toEqual(out.attempts);
  });
});
