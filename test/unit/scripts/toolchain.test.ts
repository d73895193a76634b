import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const nodeBin = dirname(process.execPath);
const scratch = mkdtempSync(join(tmpdir(), 'model-retry-toolchain-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function toolchain(env: Record<string, string | undefined>) {
  const result = spawnSync('bash', ['scripts/toolchain.sh'], {
    env: { HOME: process.env.HOME, MODEL_RETRY_CACHE: join(scratch, 'cache'), ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('scripts/toolchain.sh', () => {
  it('uses a Node >= 22 that is already on PATH and an explicit TEMPORAL_CLI_PATH, and says so', () => {
    const cli = join(scratch, 'my-temporal');
    writeFileSync(cli, '#!/bin/sh\necho fake\n');
    chmodSync(cli, 0o755);
    const { code, stdout, stderr } = toolchain({ PATH: `${nodeBin}:/usr/bin:/bin`, TEMPORAL_CLI_PATH: cli });
    expect(code).toBe(0);
    expect(stderr).toContain(`node ${process.version}`);
    expect(stderr).toContain(`temporal CLI from TEMPORAL_CLI_PATH: ${cli}`);
    expect(stdout).toContain(`export TEMPORAL_CLI_PATH=${cli}`);
  });

  it('finds `temporal` on PATH when TEMPORAL_CLI_PATH is not set', () => {
    const bin = join(scratch, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'temporal'), '#!/bin/sh\necho fake\n');
    chmodSync(join(bin, 'temporal'), 0o755);
    const { code, stderr } = toolchain({ PATH: `${bin}:${nodeBin}:/usr/bin:/bin` });
    expect(code).toBe(0);
    expect(stderr).toContain(`temporal CLI on PATH: ${join(bin, 'temporal')}`);
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable, naming it', () => {
    const { code, stderr } = toolchain({
      PATH: `${nodeBin}:/usr/bin:/bin`,
      TEMPORAL_CLI_PATH: '/nonexistent/temporal',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('TEMPORAL_CLI_PATH=/nonexistent/temporal is not an executable file');
  });

  it('is quiet about what is already in place when asked to be', () => {
    const cli = join(scratch, 'my-temporal');
    const { code, stderr } = toolchain({
      PATH: `${nodeBin}:/usr/bin:/bin`,
      TEMPORAL_CLI_PATH: cli,
      MODEL_RETRY_TOOLCHAIN_QUIET: '1',
    });
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('leaves the browser out unless asked: the demo needs only Node and the Temporal CLI', () => {
    const cli = join(scratch, 'my-temporal');
    const { code, stderr } = toolchain({ PATH: `${nodeBin}:/usr/bin:/bin`, TEMPORAL_CLI_PATH: cli });
    expect(code).toBe(0);
    expect(stderr).not.toContain('chromium');
  });
});
