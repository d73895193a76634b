import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallReport } from '../../client/call-report.js';
import { fail, ok, rateLimited } from '../../loopback/index.js';
import { runCli } from '../harness/cli.js';
import { runCall } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import { useFixture, useTempDir } from '../harness/fixture.js';

const execFileAsync = promisify(execFile);

describe('model-retry history: after the worker is gone, from exports, as an HTML page', () => {
  const { fx, worker } = useFixture();
  let run: CallRun;
  let deadlineRun: CallRun;
  const dir = useTempDir('model-retry-history-');
  const env = () => ({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
  });

  beforeAll(async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), rateLimited(1), ok('the answer')]);
    run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [20, 40] } });
    const d = fx.model();
    fx.lp.script(d.id, [{ ...fail(503), repeat: true }]);
    deadlineRun = await runCall(fx, worker, {
      model: d.name,
      prompt: 'hi',
      retry: { waits: [100, 300], deadlineInMs: 5000, reserveMs: 2000, minAttemptMs: 200 },
    });
    // No worker from here on: everything below reads the event history alone.
    await worker.stop();
  });

  it('reads a closed workflow with no worker running: the same records as the workflow kept', async () => {
    const { code, stdout, stderr } = await runCli(['history', run.workflowId, '--json'], env());
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as CallReport;
    expect(report).toMatchObject({
      workflowId: run.workflowId,
      status: 'succeeded',
      stopReason: 'succeeded',
    });
    expect(report.output?.text).toBe('the answer');
    expect(report.attempts).toEqual(run.records);

    const readable = await runCli(['history', run.workflowId], env());
    expect(readable.code, readable.stderr).toBe(0);
    const lines = readable.stdout.split('\n');
    expect(lines[0]).toBe(`${run.workflowId}: succeeded`);
    expect(lines[1]).toMatch(
      /^ {2}c1\.1 +\[0\] local:\S+ +ServerError 502 +\d+ ms +-> retry-same, next in 20 ms$/,
    );
    expect(lines[2]).toMatch(/RateLimited 429 \(retry-after 1000 ms\) .* -> advance, next in 1\.00 s$/);
    expect(lines[3]).toMatch(/^ {2}c1\.3 +\[0\] local:\S+ +succeeded/);
  });

  it('says so for an unknown workflow id (exit 2)', async () => {
    const { code, stderr } = await runCli(['history', 'no-such-workflow-here'], env());
    expect(code).toBe(2);
    expect(stderr).toContain('no workflow with id no-such-workflow-here');
  });

  it('reads our own JSON export with --file, with no server at all', async () => {
    const file = join(dir, 'ours.json');
    writeFileSync(file, run.historyJson);
    const { code, stdout, stderr } = await runCli(['history', '--file', file, '--json'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as CallReport;
    expect(report.workflowId).toBe(run.workflowId);
    expect(report.attempts).toEqual(run.records);
    expect(stderr).not.toContain('not among the files');
  });

  it('reads the Temporal CLI export (`temporal workflow show --output json`) with --file', async () => {
    const temporal = process.env.TEMPORAL_CLI_PATH;
    expect(temporal, 'TEMPORAL_CLI_PATH (scripts/toolchain.sh sets it)').toBeTruthy();
    const { stdout } = await execFileAsync(temporal as string, [
      'workflow',
      'show',
      '--workflow-id',
      deadlineRun.workflowId,
      '--address',
      inject('temporalAddress'),
      '--namespace',
      inject('temporalNamespace'),
      '--output',
      'json',
    ]);
    const file = join(dir, 'temporal-cli.json');
    writeFileSync(file, stdout);
    const { code, stdout: out, stderr } = await runCli(['history', '--file', file, '--json'], {});
    expect(code, stderr).toBe(0);
    const report = JSON.parse(out) as CallReport;
    expect(report).toMatchObject({ status: 'failed', stopReason: 'deadline' });
    expect(report.attempts).toEqual(deadlineRun.records);
  });

  it('refuses a file that is not a history (exit 2, naming the file)', async () => {
    const file = join(dir, 'not-a-history.json');
    writeFileSync(file, JSON.stringify({ hello: 'world' }));
    const { code, stderr } = await runCli(['history', '--file', file], {});
    expect(code).toBe(2);
    expect(stderr).toContain(file);
  });

  it('writes a self-contained HTML timeline with a bar per attempt, the waits and the deadline lines', async () => {
    const page = join(dir, 'deadline.html');
    const { code, stderr } = await runCli(['history', deadlineRun.workflowId, '--html', page], env());
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`wrote the HTML timeline to ${page}`);
    const html = readFileSync(page, 'utf8');
    expect(html.match(/<rect class="attempt attempt-failed"/g)).toHaveLength(deadlineRun.records.length);
    // A wait follows every failure the plan retried, the last one too when its wait outlasted the deadline's room.
    const waits = deadlineRun.records.filter((r) => (r.retryInMs ?? 0) > 0).length;
    expect(waits).toBeGreaterThanOrEqual(deadlineRun.records.length - 1);
    expect(html.match(/<rect class="wait"/g)).toHaveLength(waits);
    expect(html).toContain('<line class="deadline"');
    expect(html).toContain('<line class="reserve"');
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
  });
});
