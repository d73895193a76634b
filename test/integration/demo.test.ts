import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { readFileSync } from 'node:fs';
import { runCli } from '../harness/cli.js';

describe('model-retry demo (what npm start runs)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-retry-demo-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs a real workflow on its own server, prints the history, exports it and leaves nothing running', async () => {
    const { code, stdout, stderr } = await runCli(['demo'], { MODEL_RETRY_DATA_DIR: dataDir }, 90_000);
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    expect(stdout).toMatch(/TimerStarted/);
    expect(stdout).toMatch(/ActivityTaskCompleted/);
    expect(stdout).toMatch(/WorkflowExecutionCompleted/);

    const exportPath = /History exported to (\S+)/.exec(stdout)?.[1];
    expect(exportPath && existsSync(exportPath)).toBe(true);
    const history = historyFromJSON(JSON.parse(readFileSync(exportPath!, 'utf8')));
    expect(history.events?.length).toBeGreaterThan(10);

    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(processes).not.toContain(dataDir);
  });
});
