import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readCallHistory } from '../../client/history-reader.js';
import type { CallOutcome } from '../../cli/call-outcome.js';
import { fail, ok } from '../../loopback/index.js';
import { statusQuery } from '../../common/queries.js';
import { runCli, spawnCli } from '../harness/cli.js';
import { story, TEST_API_KEY } from '../harness/model-call.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';
import type { TestWorker } from '../harness/temporal.js';
import { useFixture, useTempDir } from '../harness/fixture.js';
import { until as untilValue } from '../harness/until.js';

/** Waits until `probe` gives a value (a thrown error counts as not yet), every 100 ms for 20 s at most. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000) =>
  untilValue(what, probe, timeoutMs, 100);

describe('model-retry call, cancel and worker --providers against a real server', () => {
  const { fx } = useFixture({ worker: false });
  const workers: TestWorker[] = [];
  const dir = useTempDir('model-retry-cli-');

  /** A worker on a task queue of its own, and the CLI's environment pointing at it. */
  async function worker(taskQueue?: string) {
    const w = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      ...(taskQueue ? { taskQueue } : {}),
    });
    workers.push(w);
    return { worker: w, env: cliEnv(w.taskQueue) };
  }

  function cliEnv(taskQueue: string, address = inject('temporalAddress')): NodeJS.ProcessEnv {
    return {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      MODEL_RETRY_TASK_QUEUE: taskQueue,
    };
  }

  const parse = (stdout: string) => JSON.parse(stdout) as CallOutcome;

  it('meets a 502, waits 10 ms, succeeds: exit 0 and one JSON object with every attempt', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('hello from the cli')]);
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--waits', '10', '--json'],
      env,
    );
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const out = parse(stdout);
    expect(out).toMatchObject({
      status: 'succeeded',
      stopReason: 'succeeded',
      output: { text: 'hello from the cli' },
      model: m.name,
      billed: { attempts: 2 },
    });
    expect(out.workflowId).toMatch(/^model-call-[0-9a-f-]{36}$/);
    expect(out.usage?.inputTokens).toBeGreaterThan(0);
    expect(story(out.attempts)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    const history = await fx.temporal.client.workflow.getHandle(out.workflowId).fetchHistory();
    expect(readCallHistory(history).attempts).toEqual(out.attempts);
    expect(fx.lp.requestCount(m.id)).toBe(2);
    expect(stderr).not.toContain('exactly one attempt');
  });

  it('without --json prints progress on stderr, the answer on stdout and a summary line', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(503), ok('plain answer')]);
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--waits', '10'],
      env,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('plain answer\n');
    expect(stderr).toMatch(
      new RegExp(
        `\\[c1\\.1\\] attempt 1 on ${m.name} \\(backend 0\\): ServerError 503 after \\d+ ms -> retry-same in 10 ms`,
      ),
    );
    expect(stderr).toMatch(/\[c1\.2\] attempt 2 on .*: succeeded after \d+ ms/);
    expect(stderr).toMatch(new RegExp(`succeeded on ${m.name} after 2 attempts in .*; workflow model-call-`));
    expect(stderr).not.toContain('\r');
  });

  it('prints a long answer whole through a pipe, as text and as --json (stdout drained before the exit)', async () => {
    // More than a pipe's buffer (64 KB): the process used to exit with the rest still queued, so a script reading
    // `model-retry call ... | ...` got a cut answer (or JSON that does not parse) with exit 0.
    const { env } = await worker();
    const m = fx.model();
    const answer = 'long answer '.repeat(25_000).trim();
    fx.lp.script(m.id, [ok(answer), ok(answer)]);
    const plain = await runCli(['call', '--model', m.name, '--prompt', 'hi', '--no-retry'], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.length).toBe(answer.length + 1);
    expect(plain.stdout).toBe(`${answer}\n`);
    const json = await runCli(['call', '--model', m.name, '--prompt', 'hi', '--no-retry', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(parse(json.stdout).output?.text).toBe(answer);
  });

  it('fails with exit 1 and its stop reason, listing all attempts (more than the 20 in the failure details)', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [{ ...fail(502), repeat: true }]);
    const waits = Array.from({ length: 21 }, () => '0').join(',');
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--waits', waits, '--json'],
      env,
    );
    expect(code, stderr).toBe(1);
    const out = parse(stdout);
    expect(out.status).toBe('failed');
    expect(out.stopReason).toBe('attempts-exhausted');
    expect(out.attempts).toHaveLength(22);
    expect(out.output).toBeUndefined();
    expect(fx.lp.requestCount(m.id)).toBe(22);
  });

  it('stops a 400 as non-retryable, exit 1, and says so without --json', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--waits', '10'],
      env,
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/failed \(non-retryable\) after 1 attempt.*; last: BadRequest 400/);
  });

  it('refuses a plan with exit 2, naming the flags, and starts nothing', async () => {
    const { env } = await worker();
    const m = fx.model();
    const workflowId = `cli-refused-${randomUUID()}`;
    const { code, stdout, stderr } = await runCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'hi',
        '--deadline',
        '5000',
        '--workflow-id',
        workflowId,
        '--json',
      ],
      env,
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('`--deadline` leaves');
    expect(stderr).toContain('lower `--reserve`');
    await expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('without a plan flag says that exactly one attempt will be made, and makes one', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(502)]);
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--json'],
      env,
    );
    expect(code).toBe(1);
    expect(stderr).toContain('no retry plan given: exactly one attempt will be made');
    expect(stderr).toContain('--waits 1000,5000');
    expect(parse(stdout).attempts).toHaveLength(1);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('prints a cancelled call as cancelled (exit 1) after `model-retry cancel` (exit 0)', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(502)]);
    const workflowId = `cli-cancel-${randomUUID()}`;
    const call = spawnCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'hi',
        '--waits',
        '60000',
        '--workflow-id',
        workflowId,
        '--json',
      ],
      env,
    );
    const handle = fx.temporal.client.workflow.getHandle(workflowId);
    await until('the wait', async () =>
      (await handle.query(statusQuery))?.state === 'waiting' ? true : undefined,
    );
    const cancel = await runCli(['cancel', workflowId], env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stderr).toContain(`cancelled after 1 attempt; workflow ${workflowId}`);
    const { code, stdout } = await call.exited;
    expect(code).toBe(1);
    const out = parse(stdout);
    expect(out).toMatchObject({ workflowId, status: 'cancelled', stopReason: 'cancelled' });
    expect(story(out.attempts)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 60_000 },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(1);

    const again = await runCli(['cancel', workflowId], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('had already closed (CANCELLED); nothing to cancel');
    const unknown = await runCli(['cancel', `cli-no-such-${randomUUID()}`], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('there is no workflow with id');
  });

  it('run again with the same --workflow-id, returns the recorded result without a new request', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('only once')]);
    const workflowId = `cli-again-${randomUUID()}`;
    const args = ['call', '--model', m.name, '--prompt', 'hi', '--waits', '10', '--workflow-id', workflowId];
    const first = await runCli([...args, '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli([...args, '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(parse(second.stdout)).toEqual(parse(first.stdout));
    expect(fx.lp.requestCount(m.id)).toBe(2);

    const attach = await runCli(['call', '--workflow-id', workflowId], env);
    expect(attach.code).toBe(0);
    expect(attach.stdout).toBe('only once\n');
    expect(attach.stderr).toContain(
      'has already ended; its recorded outcome follows (no new request was made)',
    );
    expect(attach.stderr).toContain('[c1.1] attempt 1');

    const otherPrompt = [
      'call',
      '--model',
      m.name,
      '--prompt',
      'something else',
      '--workflow-id',
      workflowId,
    ];
    const other = await runCli([...otherPrompt, '--json'], env);
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('was started with other input');
    expect(fx.lp.requestCount(m.id)).toBe(2);

    const missing = await runCli(['call', '--workflow-id', `cli-no-such-${randomUUID()}`], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('there is no call with workflow id');
  });

  it('warns when no worker polls the task queue, detaches on Ctrl-C (exit 3), and attaches again later', async () => {
    const taskQueue = `cli-no-worker-${randomUUID()}`;
    const m = fx.model();
    fx.lp.script(m.id, [ok('worth the wait')]);
    const workflowId = `cli-detach-${randomUUID()}`;
    const args = [
      'call',
      '--model',
      m.name,
      '--prompt',
      'hi',
      '--no-retry',
      '--workflow-id',
      workflowId,
      '--json',
    ];
    const call = spawnCli(args, cliEnv(taskQueue));
    await call.waitFor(/no worker is polling task queue/);
    expect(call.stderr()).toContain(`model-retry worker --task-queue ${taskQueue}`);
    call.child.kill('SIGINT');
    const { code, stdout, stderr } = await call.exited;
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toEqual({ workflowId, status: 'unknown', reason: 'detached' });
    expect(stderr).toContain(`model-retry call --workflow-id ${workflowId}`);
    expect(stderr).toContain(`model-retry cancel ${workflowId}`);
    const handle = fx.temporal.client.workflow.getHandle(workflowId);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await worker(taskQueue);
    const attached = await runCli(args, cliEnv(taskQueue));
    expect(attached.code, attached.stderr).toBe(0);
    expect(parse(attached.stdout).output?.text).toBe('worth the wait');
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('exits 3 with the workflow id when it loses Temporal; the call goes on and is attached again', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('survived')]);
    const proxy = await startTcpProxy(inject('temporalAddress'));
    const workflowId = `cli-lost-${randomUUID()}`;
    const args = [
      'call',
      '--model',
      m.name,
      '--prompt',
      'hi',
      '--waits',
      '8000',
      '--workflow-id',
      workflowId,
      '--json',
    ];
    const call = spawnCli(args, { ...env, TEMPORAL_ADDRESS: proxy.address });
    await until('the first attempt', async () => (fx.lp.requestCount(m.id) === 1 ? true : undefined));
    await proxy.cut();
    const { code, stdout, stderr } = await call.exited;
    expect(code, stderr).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ workflowId, status: 'unknown', reason: 'connection-lost' });
    expect(stderr).toContain(`model-retry call --workflow-id ${workflowId}`);

    const again = await runCli(args, env);
    expect(again.code, again.stderr).toBe(0);
    expect(parse(again.stdout).output?.text).toBe('survived');
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it('sends --image bytes and --header to the provider, in one user message with the prompt', async () => {
    const { env } = await worker();
    const m = fx.model();
    fx.lp.script(m.id, [ok('a red pixel')]);
    const pixel = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const image = join(dir, 'pixel.png');
    writeFileSync(image, pixel);
    const { code, stdout, stderr } = await runCli(
      [
        'call',
        '--model',
        m.name,
        '--prompt',
        'what is this?',
        '--image',
        image,
        '--header',
        'X-Trace-Id:t-1',
        '--no-retry',
        '--json',
      ],
      env,
    );
    expect(code, stderr).toBe(0);
    expect(parse(stdout).output?.text).toBe('a red pixel');
    const [request] = fx.lp.requests(m.id);
    expect(request?.headers['x-trace-id']).toBe('t-1');
    const body = request?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel.toString('base64')}` } },
      ],
    });
  });

  it('refuses an --image that takes the input over 2 MB without a payload store, naming it (exit 2)', async () => {
    const { env } = await worker();
    const m = fx.model();
    const image = join(dir, 'large.png');
    writeFileSync(image, Buffer.alloc(2_000_000, 7));
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt', 'hi', '--image', image, '--no-retry'],
      env,
    );
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`\`--image ${image}\`: is 2.5 MB`);
    expect(stderr).toContain('MODEL_RETRY_PAYLOAD_STORE');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('worker --providers FILE --heartbeat-ms 1000 serves calls at that cadence, and exits 0 on SIGINT', async () => {
    const providers = join(dir, 'providers.json');
    writeFileSync(
      providers,
      JSON.stringify({
        local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
      }),
    );
    const taskQueue = `cli-worker-${randomUUID()}`;
    const env = cliEnv(taskQueue);
    const proc = spawnCli(
      ['worker', '--providers', providers, '--shutdown-grace-ms', '1000', '--heartbeat-ms', '1000'],
      { ...env, LOOPBACK_KEY: TEST_API_KEY },
    );
    try {
      await proc.waitFor(/polling task queue/, 60_000);
      expect(proc.stderr()).toContain(`providers local`);
      const m = fx.model();
      fx.lp.script(m.id, [ok('from the worker process')]);
      const { code, stdout, stderr } = await runCli(
        ['call', '--model', m.name, '--prompt', 'hi', '--no-retry', '--json'],
        env,
      );
      expect(code, stderr).toBe(0);
      const out = parse(stdout);
      expect(out.output?.text).toBe('from the worker process');
      // The worker told the workflow its cadence: the attempt's heartbeat timeout is three beats of it.
      const { events } = await fx.temporal.client.workflow.getHandle(out.workflowId).fetchHistory();
      const scheduled = events?.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelRequest',
      );
      expect(optionalTsToMs(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout)).toBe(3000);
    } finally {
      proc.child.kill('SIGINT');
    }
    const { code } = await proc.exited;
    expect(code).toBe(0);
  });
});
