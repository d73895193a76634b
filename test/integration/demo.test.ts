import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../harness/cli.js';

describe('model-retry demo (what npm start runs)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-retry-demo-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs an agent turn that calls a tool, meets a 502 and a 429, recovers, prints its timeline and leaves nothing running', async () => {
    const { code, stdout, stderr } = await runCli(['demo'], { MODEL_RETRY_DATA_DIR: dataDir }, 90_000);
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    expect(stdout).toMatch(/step 1: model call c1 asked for tool calculator \[c1\.tool\.1\] -> 391$/m);
    const timeline = stdout.split('\n').filter((line) => /^ {2}c\d+\.\d/.test(line));
    expect(timeline).toHaveLength(4);
    expect(timeline[0]).toMatch(/c1\.1 +\[0\] loopback:flaky +succeeded/);
    expect(timeline[1]).toMatch(
      /c2\.1 +\[0\] loopback:flaky +ServerError 502 .* -> retry-same, next in 250 ms$/,
    );
    expect(timeline[2]).toMatch(
      /c2\.2 +\[0\] loopback:flaky +RateLimited 429 \(retry-after 1000 ms\) .* next in 1\.00 s$/,
    );
    expect(timeline[3]).toMatch(/c2\.3 +\[0\] loopback:flaky +succeeded/);
    expect(stdout).toMatch(/^Answer: 17 × 23 = 391\./m);
    expect(stdout).toContain('The provider saw 4 requests');

    const exportPath = /History exported to (\S+)/.exec(stdout)?.[1];
    expect(exportPath && existsSync(exportPath)).toBe(true);
    const again = await runCli(['history', '--file', exportPath!]);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n').filter((line) => /^ {2}c\d+\.\d/.test(line))).toEqual(timeline);

    // The HTML timeline of the exported turn puts the calculator call in the lane of the call that asked for it.
    const page = join(dataDir, 'demo.html');
    expect((await runCli(['history', '--file', exportPath!, '--html', page])).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(
      /<rect class="tool tool-succeeded" data-tool="c1\.tool\.1"[^>]*><title>c1\.tool\.1 · tool calculator · succeeded/,
    );
    expect(html).toMatch(
      /<text class="wait-label" data-after="c2\.2"[^>]*>RateLimited 429( · 1\.00 s)?<\/text>/,
    );

    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(processes).not.toContain(dataDir);
  });
});
