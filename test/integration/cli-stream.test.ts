import { describe, expect, it } from 'vitest';
import { ok, toolCall } from '../../loopback/index.js';
import { runCli, spawnCli } from '../harness/cli.js';
import { useFixture } from '../harness/fixture.js';

const WORDS = Array.from({ length: 12 }, (_, i) => `word${i} `);

describe('model-retry call --stream', () => {
  const { fx, env } = useFixture();

  it('prints the text on stdout while it arrives, then the summary', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 150 })]);
    const cli = spawnCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--no-retry', '--stream-batch-ms', '20'],
      env,
    );
    // Part of the answer is on stdout while the provider is still sending the rest.
    await cli.waitFor(/word2 /);
    expect(fx.lp.requests(m.id)[0]?.outcome).toBe('pending');
    const { code, stdout, stderr } = await cli.exited;
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`${WORDS.join('')}\n`);
    expect(stderr).toMatch(/succeeded on local:.* after 1 attempt/);
  });

  it('prints the partial text and exits 1 when the stream is interrupted, without sending it again', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 40, cutAfterChunks: 6 }), ok('again')]);
    const { code, stdout, stderr } = await runCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'hi',
        '--waits',
        '10,10',
        '--stream',
        '--stream-batch-ms',
        '10',
      ],
      env,
    );
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('stream-interrupted');
    expect(fx.lp.requestCount(m.id)).toBe(1);
    const shown = stdout.replace(/\n$/, '');
    expect(shown.length).toBeGreaterThan(0);
    expect(WORDS.slice(0, 6).join('')).toContain(shown);
    expect(shown.startsWith('word0 ')).toBe(true);
    fx.lp.reset();
  });

  it("turn --stream prints the turn's streamed text on stdout", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      toolCall('calculator', { expression: '6 * 7' }, { text: 'Let me compute. ' }),
      ok(undefined, { chunks: ['It ', 'is ', '42.'], chunkDelayMs: 30 }),
    ]);
    const { code, stdout, stderr } = await runCli(
      ['turn', '--model', m.name, '--prompt', '6 times 7?', '--tool', 'calculator', '--no-retry', '--stream'],
      env,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('Let me compute. It is 42.\n');
    expect(stderr).toMatch(/turn succeeded \(succeeded\) after 2 steps/);
  });

  it('refuses a bad batch interval before anything starts, naming the flag', async () => {
    const { code, stderr } = await runCli(
      ['call', '--model', 'local:x', '--prompt', 'hi', '--no-retry', '--stream-batch-ms', '5'],
      env,
    );
    expect(code).toBe(2);
    expect(stderr).toContain('`--stream-batch-ms`: must be a whole number of milliseconds from 10 to 60000');
  });
});
