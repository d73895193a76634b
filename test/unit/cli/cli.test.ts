import { describe, expect, it } from 'vitest';
import { runCli } from '../../harness/cli.js';

describe('the model-retry command line', () => {
  it('prints its commands with --help and exits 0', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: model-retry <command>/m);
    expect(stdout).toMatch(/^ {2}demo /m);
    expect(stdout).toMatch(/^ {2}worker /m);
  });

  it('explains the worker options', async () => {
    const { code, stdout } = await runCli(['worker', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--task-queue Q');
    expect(stdout).toContain('MODEL_RETRY_SHUTDOWN_GRACE_MS');
  });

  it('refuses an unknown command with exit 2 and points at --help', async () => {
    const { code, stderr } = await runCli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('model-retry --help');
  });

  it('refuses an unknown flag with exit 2, naming it', async () => {
    const { code, stderr } = await runCli(['worker', '--tasq-queue', 'x']);
    expect(code).toBe(2);
    expect(stderr).toContain("'--tasq-queue'");
    expect(stderr).toContain('model-retry worker --help');
  });

  it('without a providers file, a credential in OPENAI_BASE_URL is refused naming the variable, not a file', async () => {
    const { code, stderr } = await runCli(['worker'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      MODEL_RETRY_PROVIDERS: '',
      OPENAI_BASE_URL: 'https://user:hunter2-secret@gateway.example/v1',
    });
    expect(code).toBe(2);
    expect(stderr).toContain('OPENAI_BASE_URL');
    expect(stderr).toContain('no providers file');
    expect(stderr).not.toContain('providers file named by');
    expect(stderr).not.toContain('hunter2-secret');
  });

  it('refuses a bad shutdown grace before connecting to anything, naming the flag', async () => {
    const { code, stderr } = await runCli(['worker', '--shutdown-grace-ms', 'soon'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(code).toBe(2);
    expect(stderr).toContain('`--shutdown-grace-ms` must be a number of milliseconds');
  });

  it('refuses a bad heartbeat cadence, from the flag or MODEL_RETRY_HEARTBEAT_MS, before connecting', async () => {
    for (const [args, env] of [
      [['worker', '--heartbeat-ms', '0'], {}],
      [['worker', '--heartbeat-ms', '50'], {}],
      [['worker'], { MODEL_RETRY_HEARTBEAT_MS: '1.5' }],
    ] as const) {
      const { code, stderr } = await runCli([...args], { TEMPORAL_ADDRESS: '127.0.0.1:1', ...env });
      expect(code).toBe(2);
      expect(stderr).toContain('`--heartbeat-ms` must be a whole number of milliseconds');
    }
  });
});
