import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../cli/call-outcome.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok } from '../../loopback/index.js';
import { InvalidModelCallInputError } from '../../common/call-input/call-input.js';
import { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { runCli } from '../harness/cli.js';
import { finishCall, runCall, story } from '../harness/model-call.js';
import { useFixture, useTempDir } from '../harness/fixture.js';

const MB = 1024 * 1024;

/**
 * Bad input, where a user meets it (`startModelCall`, `model-retry call`, a workflow started by other means):
 * refused before anything starts, or a non-retryable failure on the first attempt; never a loop of workflow
 * task retries, never a provider paid again for the same mistake.
 */
describe('bad input is refused clearly, once', () => {
  const { fx, worker, env } = useFixture();
  const dir = useTempDir('model-retry-bad-input-');

  const cliEnv = () => env;
  const notStarted = async (workflowId: string) =>
    expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);

  it('startModelCall refuses a 3 MB prompt before anything starts, naming the field, the limit and the fix', async () => {
    const m = fx.model();
    const workflowId = `too-large-${m.id}`;
    const start = startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'p'.repeat(3 * MB) },
      { taskQueue: worker.taskQueue, workflowId },
    );
    await expect(start).rejects.toBeInstanceOf(InvalidModelCallInputError);
    await expect(start).rejects.toThrow(
      /^`prompt`: is 3\.0 MB .*limit on one payload is 2 MB.*MODEL_RETRY_PAYLOAD_STORE.*docs\/operations\/security\.md/,
    );
    await notStarted(workflowId);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('model-retry call --prompt-file refuses a 3 MB prompt with exit 2, naming the flag', async () => {
    const m = fx.model();
    const file = join(dir, 'long-prompt.txt');
    writeFileSync(file, 'p'.repeat(3 * MB));
    const workflowId = `cli-too-large-${m.id}`;
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt-file', file, '--workflow-id', workflowId, '--no-retry'],
      cliEnv(),
    );
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /`--prompt-file`: is 3\.0 MB .*Temporal's limit on one payload is 2 MB.*MODEL_RETRY_PAYLOAD_STORE/,
    );
    await notStarted(workflowId);
  });

  it('model-retry call --prompt-file takes a long prompt that fits, and answers it', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('read it all')]);
    const file = join(dir, 'fits.txt');
    writeFileSync(file, 'p'.repeat(MB));
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', m.name, '--prompt-file', file, '--no-retry', '--json'],
      cliEnv(),
    );
    expect(code, stderr).toBe(0);
    expect((JSON.parse(stdout) as CallOutcome).output?.text).toBe('read it all');
    const body = fx.lp.requests(m.id)[0]?.body as { messages: { content: string }[] };
    expect(body.messages.at(-1)?.content).toHaveLength(MB);
  });

  it('an answer over 2 MB fails its attempt at once as Misconfigured (not retried, its usage billed), naming the fix', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('a'.repeat(3 * MB), { usage: { inputTokens: 5, outputTokens: 750_000 } })]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'write a lot',
      retry: { waits: [10, 10] },
    });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'Misconfigured', action: 'drop' },
    ]);
    expect(run.records[0]?.failure?.message).toMatch(
      /^the answer is \d+ bytes as a Temporal payload, over the \d+ it may take \(Temporal's 2\.0 MB less the call's records\), so it cannot be recorded: lower `settings\.maxOutputTokens`, or enable the payload store/,
    );
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(run.details?.billed).toMatchObject({ attempts: 1, outputTokens: 750_000 });
    expect(fx.lp.requestCount(m.id)).toBe(1);
    expect((run.history.events ?? []).map(eventTypeName)).not.toContain('WorkflowTaskFailed');
  });

  it("an answer that fits one payload but not the call's result with its records fails Misconfigured, never TERMINATED", async () => {
    // The activity's result passed the 2 MB check; the workflow's result (the answer, every attempt record, the
    // totals) did not, and the server terminated the run.
    const m = fx.model();
    fx.lp.script(m.id, [fail(503), ok('a'.repeat(2 * MB - 600))]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'write a lot', retry: { waits: [10] } });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'failed', class: 'Misconfigured', action: 'drop' },
    ]);
    expect(run.records[1]?.failure?.message).toMatch(/so it cannot be recorded/);
    expect(run.details?.stopReason).toBe('non-retryable');
  });

  it('after an answer over 2 MB, the next backend in the chain is asked', async () => {
    const [big, small] = [fx.model('big'), fx.model('small')];
    fx.lp.script(big.id, [ok('a'.repeat(3 * MB))]);
    fx.lp.script(small.id, [ok('short')]);
    const run = await runCall(fx, worker, {
      model: [big.name, small.name],
      prompt: 'hi',
      retry: { waits: [10] },
    });
    expect(story(run.records).map((r) => r.class)).toEqual(['Misconfigured', undefined]);
    expect(run.result?.output.text).toBe('short');
  });

  it('a prompt with nothing in it: startModelCall refuses it; a workflow started without the check fails at once', async () => {
    const m = fx.model();
    await expect(
      startModelCall(fx.temporal.client, { model: m.name, prompt: ' ' }, { taskQueue: worker.taskQueue }),
    ).rejects.toThrow(/^`prompt`: is empty: give the text to send/);
    await expect(
      startModelCall(fx.temporal.client, { model: m.name, messages: [] }, { taskQueue: worker.taskQueue }),
    ).rejects.toThrow(/^`prompt`: give a `prompt` or at least one non-system message/);
    const handle = await fx.temporal.client.workflow.start(modelCallWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: `unchecked-${randomUUID()}`,
      args: [{ model: m.name, system: 'be brief', prompt: '' }],
    });
    const run = await finishCall(fx, handle);
    expect(run.failure).toMatchObject({ type: 'InvalidModelCallInput', nonRetryable: true });
    expect(run.failure?.message).toBe('`prompt`: is empty: give the text to send');
    const types = (run.history.events ?? []).map(eventTypeName);
    expect(types).not.toContain('ActivityTaskScheduled');
    expect(types).not.toContain('WorkflowTaskFailed');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('an unknown provider fails the first attempt as Misconfigured, naming it and the fix; nothing is sent', async () => {
    const run = await runCall(fx, worker, {
      model: 'nosuch:model',
      prompt: 'hi',
      retry: { waits: [10, 10] },
    });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'Misconfigured', action: 'drop' },
    ]);
    expect(run.records[0]?.failure?.message).toMatch(
      /^unknown provider "nosuch" in model "nosuch:model" \(known: local, claude, dead, openai, anthropic; add "nosuch" to the providers file named by MODEL_RETRY_PROVIDERS or --providers\)/,
    );
    expect(run.details?.stopReason).toBe('non-retryable');
  });

  it('an unknown model (the provider answers 404) fails the first attempt as ModelNotFound; not asked again', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(404, { message: `The model \`${m.id}\` does not exist` }), ok('never')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ModelNotFound', action: 'drop' },
    ]);
    expect(run.records[0]?.failure).toMatchObject({ status: 404, code: 'model_not_found' });
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('model-retry call with an unknown provider: exit 1 after one attempt, the message on record', async () => {
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', 'nosuch:model', '--prompt', 'hi', '--waits', '10,10', '--json'],
      cliEnv(),
    );
    expect(code, stderr).toBe(1);
    const out = JSON.parse(stdout) as CallOutcome;
    expect(out).toMatchObject({ status: 'failed', stopReason: 'non-retryable' });
    expect(out.attempts).toHaveLength(1);
    expect(out.attempts[0]?.failure?.message).toContain('unknown provider "nosuch"');
  });

  it('an attempt input over the limit that bypassed the client check is never scheduled: the call stops `history-limit`, nothing sent, never terminated', async () => {
    // Just under the limit as a workflow input (the server starts it), just over as the attempt's input (the
    // same prompt plus the attempt's own fields and a long workflow id): what a host that skips
    // `startModelCall` can meet. Before the size check, the server refused to schedule the attempt and terminated the run.
    const m = fx.model();
    const workflowId = `bypass-${'w'.repeat(600)}-${randomUUID()}`;
    const handle = await fx.temporal.client.workflow.start(modelCallWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId,
      args: [{ model: m.name, prompt: 'p'.repeat(2 * MB - 400) }],
    });
    const error = await handle.result().catch((e: unknown) => e);
    const failure = (error as { cause?: { type?: string; details?: unknown[] } }).cause;
    expect(failure?.type).toBe('ModelCallFailed');
    expect(failure?.details?.[0]).toMatchObject({ stopReason: 'history-limit' });
    const { status } = await handle.describe();
    expect(status.name).toBe('FAILED');
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    expect(events.filter((e) => eventTypeName(e) === 'WorkflowTaskFailed')).toHaveLength(0);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
