import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { rerunCalls } from '../../client/rerun.js';
import type { RerunCallsOptions } from '../../client/rerun.js';
import { RERUN_MEMO_KEY } from '../../common/rerun-input.js';
import type { RerunReport } from '../../common/rerun.js';
import { hang, ok, toolCall } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { firstPayload } from '../../client/history-events.js';
import type { ModelCallInput } from '../../common/call.js';
import { RerunRefusedError } from '../../client/rerun-requests.js';
import { createDataConverter } from '../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../payloads/payload-store.js';
import { runTurn } from '../harness/agent-turn.js';
import { until } from '../harness/until.js';
import { listRuns } from '../../client/list-runs.js';
import { runCli } from '../harness/cli.js';
import { cliEnv, useFixture } from '../harness/fixture.js';
import { modelCallFixture, runCall, TEST_SECRETS } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';

/** USD per million tokens: one dollar a token, so a budget is easy to reason about. */
const DOLLAR_A_TOKEN = { inputPerMTok: 1_000_000, outputPerMTok: 1_000_000 };

type Body = Record<string, unknown>;

describe('a rerun sends recorded requests to other models and compares the answers', () => {
  const { fx } = useFixture({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const providers = createProviderRegistry(
      {
        local: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          models: {
            'budget-cand': { pricing: DOLLAR_A_TOKEN },
            'budget-retry': { pricing: DOLLAR_A_TOKEN },
            'budget-wait': { pricing: DOLLAR_A_TOKEN },
          },
        },
        claude: { type: 'anthropic', baseURL: fx.lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' },
      },
      { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey } },
    );
    worker = await fx.temporal.startWorker({ deps: { providers } });
  });

  let n = 0;
  /** A loopback model of `provider` no other test uses. */
  const model = (provider: 'local' | 'claude', name = 'm') => {
    n += 1;
    const id = `rerun-${name}-${n}`;
    return { id, name: `${provider}:${id}` };
  };

  const rerun = (options: Omit<RerunCallsOptions, 'taskQueue'>): Promise<RerunReport> =>
    rerunCalls(fx.temporal.client, { taskQueue: worker.taskQueue, ...options });

  const eventCount = async (workflowId: string) =>
    (await fx.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;

  it('sends each recorded call, exactly as recorded, to an OpenAI and an Anthropic backend; the originals are untouched', async () => {
    const [orig, origB] = [model('local', 'orig'), model('local', 'orig')];
    const [openai, anthropic] = [model('local', 'cand'), model('claude', 'cand')];
    fx.lp.script(orig.id, [ok('Red.', { usage: { inputTokens: 12, outputTokens: 2 } })]);
    fx.lp.script(origB.id, [ok('Blue.', { usage: { inputTokens: 12, outputTokens: 2 } })]);
    fx.lp.script(openai.id, [ok('Red.'), ok('Green.')]);
    fx.lp.script(anthropic.id, [ok('Crimson, perhaps.'), ok('Blue.')]);
    const settings = { temperature: 0.25, maxOutputTokens: 40 };
    const a = await runCall(fx, worker, {
      model: orig.name,
      system: 'Answer in one word.',
      prompt: 'Name a colour.',
      settings,
    });
    const b = await runCall(fx, worker, {
      model: origB.name,
      prompt: 'Name the colour of the sky.',
      settings,
    });
    const before = [await eventCount(a.workflowId), await eventCount(b.workflowId)];

    const report = await rerun({
      workflowIds: [a.workflowId, b.workflowId],
      models: [openai.name, anthropic.name],
    });

    expect(report.skipped).toEqual([]);
    expect(report.models).toEqual([openai.name, anthropic.name]);
    expect(report.pairs.map((p) => [p.source.workflowId, p.source.callId, p.source.step])).toEqual([
      [a.workflowId, 'c1', undefined],
      [b.workflowId, 'c1', undefined],
    ]);
    const [first, second] = report.pairs;
    expect(first?.original).toMatchObject({
      model: orig.name,
      workflowId: a.workflowId,
      outcome: 'succeeded',
      text: 'Red.',
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 2 },
    });
    expect(first?.candidates.map((c) => [c.model, c.outcome, c.text])).toEqual([
      [openai.name, 'succeeded', 'Red.'],
      [anthropic.name, 'succeeded', 'Crimson, perhaps.'],
    ]);
    expect(second?.candidates.map((c) => c.text)).toEqual(['Green.', 'Blue.']);
    for (const c of [...(first?.candidates ?? []), ...(second?.candidates ?? [])]) {
      expect(c.workflowId.startsWith(`${report.rerunWorkflowId}.`)).toBe(true);
      expect(c.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(report.totals.map((t) => [t.model, t.requests, t.succeeded, t.sameText])).toEqual([
      ['original', 2, 2, 2],
      [openai.name, 2, 2, 1],
      [anthropic.name, 2, 2, 1],
    ]);

    // A request for each recorded one: the OpenAI candidate got the original's very bodies, but for the model.
    const recorded = [orig.id, origB.id].map((id) => fx.lp.requests(id)[0]?.body as Body);
    const sentOpenai = fx.lp.requests(openai.id).map((r) => r.body as Body);
    expect(sentOpenai).toHaveLength(2);
    expect(sentOpenai.map((body, i) => ({ ...body, model: [orig.id, origB.id][i] }))).toEqual(recorded);
    // The Anthropic candidate got the same conversation and settings in its own wire format.
    const sentAnthropic = fx.lp.requests(anthropic.id).map((r) => r.body as Body);
    expect(sentAnthropic).toHaveLength(2);
    expect(sentAnthropic[0]).toMatchObject({
      system: [{ type: 'text', text: 'Answer in one word.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Name a colour.' }] }],
      temperature: 0.25,
      max_tokens: 40,
    });
    expect(sentAnthropic[1]).toMatchObject({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Name the colour of the sky.' }] }],
    });
    expect(sentAnthropic[1]).not.toHaveProperty('system');

    // The originals are only read; the rerun's own history names what it reran.
    expect([await eventCount(a.workflowId), await eventCount(b.workflowId)]).toEqual(before);
    const description = await fx.temporal.client.workflow.getHandle(report.rerunWorkflowId).describe();
    expect(description.type).toBe('rerunWorkflow');
    expect(description.memo?.[RERUN_MEMO_KEY]).toEqual([a.workflowId, b.workflowId]);
    // Kept for the file's replay check: the rerun workflow decides the same from its history.
    fx.histories.push({
      workflowId: report.rerunWorkflowId,
      history: await fx.temporal.client.workflow.getHandle(report.rerunWorkflowId).fetchHistory(),
    });
    const child = await fx.temporal.client.workflow
      .getHandle(first?.candidates[1]?.workflowId ?? '')
      .describe();
    expect(child.type).toBe('modelCallWorkflow');
    expect(child.memo?.[RERUN_MEMO_KEY]).toMatchObject({ workflowId: a.workflowId, callId: 'c1' });
  });

  it('reruns an agent turn step by step: each step on its recorded conversation, the tool calls compared, not run', async () => {
    const orig = model('local', 'turn');
    const [openai, anthropic] = [model('local', 'turn-cand'), model('claude', 'turn-cand')];
    fx.lp.script(orig.id, [toolCall('calculator', { expression: '6 * 7' }), ok('The answer is 42.')]);
    fx.lp.script(openai.id, [toolCall('calculator', { expression: '6*7' }), ok('42.')]);
    fx.lp.script(anthropic.id, [toolCall('calculator', { expression: '7 * 6' }), ok('It is 42.')]);
    const turn = await runTurn(fx, worker, {
      model: orig.name,
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
    });
    expect(turn.result?.stopReason).toBe('succeeded');
    const before = await eventCount(turn.handle.workflowId);

    const report = await rerun({
      workflowIds: [turn.handle.workflowId],
      models: [openai.name, anthropic.name],
    });

    expect(report.pairs.map((p) => [p.source.callId, p.source.step])).toEqual([
      ['c1', 1],
      ['c2', 2],
    ]);
    const [one, two] = report.pairs;
    expect(one?.original.toolCalls.map((t) => [t.name, JSON.parse(t.args)])).toEqual([
      ['calculator', { expression: '6 * 7' }],
    ]);
    expect(one?.candidates.map((c) => [c.finishReason, c.toolCalls.map((t) => JSON.parse(t.args))])).toEqual([
      ['tool-calls', [{ expression: '6*7' }]],
      ['tool-calls', [{ expression: '7 * 6' }]],
    ]);
    expect(two?.original.text).toBe('The answer is 42.');
    expect(two?.candidates.map((c) => c.text)).toEqual(['42.', 'It is 42.']);
    // Step 2 was sent the recorded conversation: the original's tool call and its result, not the candidate's.
    const stepTwo = fx.lp.requests(openai.id)[1]?.body as { messages: Body[] };
    expect(stepTwo.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { name: 'calculator', arguments: '{"expression":"6 * 7"}' } }],
    });
    expect(stepTwo.messages.at(-1)).toMatchObject({ role: 'tool', content: '42' });
    const claudeStepTwo = fx.lp.requests(anthropic.id)[1]?.body as { messages: Body[] };
    expect(claudeStepTwo.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', content: '42' }],
    });
    expect(fx.lp.requestCount(openai.id)).toBe(2);
    expect(fx.lp.requestCount(anthropic.id)).toBe(2);
    // No tool ran for a candidate: its child call's history has only the model's attempt.
    const child = await fx.temporal.client.workflow
      .getHandle(one?.candidates[0]?.workflowId ?? '')
      .fetchHistory();
    const activities = (child.events ?? []).flatMap((e) => {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    });
    expect(activities).toEqual(['modelRequest']);
    // Step 1's arguments differ; step 2 called no tool, as the original did.
    expect(report.totals.find((t) => t.model === openai.name)?.sameToolCalls).toBe(1);
    expect(await eventCount(turn.handle.workflowId)).toBe(before);
  });

  it("leaves another provider's signed reasoning out of the request it sends to an OpenAI backend", async () => {
    const orig = model('claude', 'signed-orig');
    const [openai, anthropic] = [model('local', 'signed-cand'), model('claude', 'signed-cand')];
    fx.lp.script(orig.id, [ok('Fourteen.')]);
    fx.lp.script(openai.id, [ok('14.')]);
    fx.lp.script(anthropic.id, [ok('Fourteen.')]);
    const thought = 'Twice seven is fourteen.';
    const call = await runCall(fx, worker, {
      model: orig.name,
      messages: [
        { role: 'user', content: 'What is 2 * 7?' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: thought, providerOptions: { anthropic: { signature: 'sig-rerun' } } },
            { type: 'text', text: 'Fourteen.' },
          ],
        },
        { role: 'user', content: 'And in digits?' },
      ],
    });
    expect(JSON.stringify(fx.lp.requests(orig.id)[0]?.body)).toContain('sig-rerun');

    const report = await rerun({ workflowIds: [call.workflowId], models: [openai.name, anthropic.name] });

    expect(report.pairs[0]?.candidates.map((c) => c.outcome)).toEqual(['succeeded', 'succeeded']);
    const sentOpenai = JSON.stringify(fx.lp.requests(openai.id)[0]?.body);
    expect(sentOpenai).toContain('And in digits?');
    expect(sentOpenai).not.toContain(thought);
    expect(sentOpenai).not.toContain('sig-rerun');
    expect(fx.lp.requests(anthropic.id)[0]?.body).toEqual({
      ...(fx.lp.requests(orig.id)[0]?.body as Body),
      model: anthropic.id,
    });
  });

  it('reruns the runs a visibility query finds', async () => {
    const orig = model('local', 'query-orig');
    const cand = model('local', 'query-cand');
    fx.lp.script(orig.id, [ok('Found.')]);
    fx.lp.script(cand.id, [ok('Found too.')]);
    const call = await runCall(fx, worker, { model: orig.name, prompt: 'Find me.' });
    const query = `WorkflowId = '${call.workflowId}'`;
    await until('the call in visibility', async () =>
      (await listRuns(fx.temporal.client, query, 1)).length > 0 ? true : undefined,
    );
    const report = await rerun({ query, limit: 5, models: [cand.name] });
    expect(report.pairs.map((p) => [p.source.workflowId, p.candidates[0]?.text])).toEqual([
      [call.workflowId, 'Found too.'],
    ]);
  });

  it('`--call` picks one call of a workflow; a call it does not have is refused before anything starts', async () => {
    const orig = model('local', 'pick');
    const cand = model('local', 'pick-cand');
    fx.lp.script(orig.id, [toolCall('calculator', { expression: '1 + 1' }), ok('2.')]);
    fx.lp.script(cand.id, [ok('Two.')]);
    const turn = await runTurn(fx, worker, { model: orig.name, prompt: '1 + 1?', tools: ['calculator'] });
    const report = await rerun({ workflowIds: [turn.handle.workflowId], callId: 'c2', models: [cand.name] });
    expect(report.pairs.map((p) => p.source.step)).toEqual([2]);
    expect(fx.lp.requestCount(cand.id)).toBe(1);
    await expect(
      rerun({ workflowIds: [turn.handle.workflowId], callId: 'c9', models: [cand.name] }),
    ).rejects.toThrow(/has no call c9 \(its calls: c1, c2\)/);
  });

  it('`model-retry rerun` prints each pair and the totals, or the report as JSON', async () => {
    const orig = model('local', 'cli-orig');
    const cand = model('claude', 'cli-cand');
    fx.lp.script(orig.id, [ok('Paris.')]);
    fx.lp.script(cand.id, [ok('Paris.'), ok('It is Paris.')]);
    const call = await runCall(fx, worker, { model: orig.name, prompt: 'Capital of France?' });
    const env = cliEnv(worker.taskQueue);

    const json = await runCli(['rerun', call.workflowId, '--model', cand.name, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as RerunReport;
    expect(report.pairs[0]?.candidates.map((c) => [c.model, c.text])).toEqual([[cand.name, 'Paris.']]);
    expect(report.totals.map((t) => [t.model, t.sameText])).toEqual([
      ['original', 1],
      [cand.name, 1],
    ]);

    const page = join(mkdtempSync(join(tmpdir(), 'rerun-html-')), 'report.html');
    const readable = await runCli(['rerun', call.workflowId, '--model', cand.name, '--html', page], env);
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toContain(`c1 of ${call.workflowId} (run `);
    expect(readable.stdout).toMatch(/\n {2}original +succeeded \(stop\)/);
    expect(readable.stdout).toMatch(
      new RegExp(`\\n {2}${cand.name} +succeeded \\(stop\\).*\\n +0 words removed, 2 added`),
    );
    expect(readable.stdout).toMatch(/\ntotals:\n {2}model +requests/);
    // The page has the pair side by side with the candidate's changes marked.
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('<ins>');
    expect(html).toContain(cand.name);

    const unknown = await runCli(['rerun', call.workflowId, '--call', 'c5', '--model', cand.name], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no call c5 (its calls: c1)');
    expect(fx.lp.requestCount(cand.id)).toBe(2);
  });

  it('stops starting calls when the budget would be passed, and reports the requests it did not send', async () => {
    const cand = { id: 'budget-cand', name: 'local:budget-cand' };
    fx.lp.script(cand.id, [ok('Uno.', { usage: { inputTokens: 10, outputTokens: 5 } })]);
    const calls = [];
    for (const prompt of ['Say one.', 'Say two.', 'Say three.']) {
      const orig = model('local', 'budget-orig');
      fx.lp.script(orig.id, [ok('Done.')]);
      calls.push(await runCall(fx, worker, { model: orig.name, prompt, settings: { maxOutputTokens: 10 } }));
    }

    // Each request's worst case is its input estimate (a few tokens) plus 10 output tokens, at $1 a token. $20
    // pays for the first; the second would pass it, whether the first is still running (held) or has ended ($15).
    const report = await rerun({
      workflowIds: calls.map((c) => c.workflowId),
      models: [cand.name],
      budgetUsd: 20,
      concurrency: 1,
    });

    expect(report.pairs.map((p) => p.source.workflowId)).toEqual([calls[0]?.workflowId]);
    expect(report.pairs[0]?.candidates[0]).toMatchObject({ outcome: 'succeeded', text: 'Uno.', costUsd: 15 });
    expect(report.skipped.map((s) => s.source.workflowId)).toEqual([
      calls[1]?.workflowId,
      calls[2]?.workflowId,
    ]);
    for (const s of report.skipped)
      expect(s.reason).toMatch(/^not started: the rerun's budget of \$20 would be passed/);
    expect(fx.lp.requestCount(cand.id)).toBe(1);
  });

  /** The `budget.maxCostUsd` a child call of a rerun was started with, read from its history. */
  const childLimit = async (workflowId: string) => {
    const history = await fx.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const input = firstPayload<ModelCallInput>(
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.input,
    );
    return input?.budget?.maxCostUsd;
  };

  /** Recorded calls with 10 output tokens at most, one per prompt. */
  const recordedCalls = async (prompts: string[]) => {
    const calls = [];
    for (const prompt of prompts) {
      const orig = model('local', 'budget-orig');
      fx.lp.script(orig.id, [ok('Done.')]);
      calls.push(await runCall(fx, worker, { model: orig.name, prompt, settings: { maxOutputTokens: 10 } }));
    }
    return calls;
  };

  it('gives each child call its worst case over the whole plan, capped by what is left, so the children in flight never hold more than the budget', async () => {
    const cand = { id: 'budget-retry', name: 'local:budget-retry' };
    fx.lp.script(cand.id, [
      ok('A.', { usage: { inputTokens: 1, outputTokens: 1 } }),
      ok('B.', { usage: { inputTokens: 1, outputTokens: 1 } }),
    ]);
    const calls = await recordedCalls(['Say one.', 'Say two.']);
    // One attempt's worst case is a few input tokens plus 10 output ones ($1 a token): three attempts fit $100
    // for each of the two children at once.
    const report = await rerun({
      workflowIds: calls.map((c) => c.workflowId),
      models: [cand.name],
      budgetUsd: 100,
      concurrency: 2,
      retry: { maxAttempts: 3, waits: [10, 10] },
    });
    expect(report.skipped).toEqual([]);
    const limits = await Promise.all(report.pairs.map((p) => childLimit(p.candidates[0]?.workflowId ?? '')));
    expect(limits).toHaveLength(2);
    for (const limit of limits) {
      expect(limit).toBeGreaterThan(3 * 10);
      expect(limit).toBeLessThan(50);
    }
    expect((limits[0] ?? 0) + (limits[1] ?? 0)).toBeLessThanOrEqual(100);
  });

  it('with calls running, a request that does not fit waits for one to end instead of stopping the rerun', async () => {
    const cand = { id: 'budget-wait', name: 'local:budget-wait' };
    fx.lp.script(
      cand.id,
      ['One.', 'Two.', 'Three.'].map((t) => ok(t, { usage: { inputTokens: 1, outputTokens: 1 } })),
    );
    const calls = await recordedCalls(['Say one.', 'Say two.', 'Say three.']);
    // A worst case of about $14 each: two at once pass $20; once one has ended ($2 spent) the next fits.
    const report = await rerun({
      workflowIds: calls.map((c) => c.workflowId),
      models: [cand.name],
      budgetUsd: 20,
      concurrency: 2,
    });
    expect(report.skipped).toEqual([]);
    expect(report.pairs.map((p) => p.candidates[0]?.text)).toEqual(['One.', 'Two.', 'Three.']);
  });

  it('bounds its report: past the payload limit the longest answers are cut and say where the whole text is', async () => {
    const cand = model('local', 'long-cand');
    const long = (c: string) => c.repeat(800_000);
    fx.lp.script(cand.id, [ok(long('a')), ok(long('b')), ok(long('c'))]);
    const calls = await recordedCalls(['Write a.', 'Write b.', 'Write c.']);
    const report = await rerun({ workflowIds: calls.map((c) => c.workflowId), models: [cand.name] });
    const answers = report.pairs.map((p) => p.candidates[0]);
    expect(answers.map((a) => a?.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(answers.some((a) => a?.textCut === true)).toBe(true);
    for (const a of answers) {
      if (a?.textCut) expect(a.text.length).toBeLessThan(800_000);
      else expect(a?.text).toHaveLength(800_000);
    }
    expect(Buffer.byteLength(JSON.stringify(report))).toBeLessThan(2 * 1024 * 1024);
  });

  it('refuses, before it starts, a rerun of more child calls than one run can record', async () => {
    const orig = model('local', 'many-orig');
    fx.lp.script(orig.id, [ok('One.')]);
    const call = await runCall(fx, worker, { model: orig.name, prompt: 'Once.' });
    const models = Array.from({ length: 9000 }, (_, i) => `local:many-${i}`);
    let started = false;
    const refused = await rerunCalls(fx.temporal.client, {
      workflowIds: [call.workflowId],
      models,
      taskQueue: `${worker.taskQueue}-nobody`,
      onStarted: (handle) => {
        started = true;
        void handle.terminate('the test expected no start');
      },
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(started).toBe(false);
    expect(refused).toBeInstanceOf(RerunRefusedError);
    expect(refused?.message).toMatch(/9000 child calls .* events/);
  });

  it('cancelling a rerun cancels its child calls and waits for them: none is terminated', async () => {
    const orig = model('local', 'cancel-orig');
    const cand = model('local', 'cancel-cand');
    const origB = model('local', 'cancel-orig');
    fx.lp.script(orig.id, [ok('Done.')]);
    fx.lp.script(origB.id, [ok('Done.')]);
    fx.lp.script(cand.id, [hang(), hang()]);
    const first = await runCall(fx, worker, { model: orig.name, prompt: 'Wait.' });
    const second = await runCall(fx, worker, { model: origB.name, prompt: 'Wait too.' });
    let rerunId = '';
    // One at a time: the rerun waits to start the second child while the first hangs.
    const running = rerun({
      workflowIds: [first.workflowId, second.workflowId],
      models: [cand.name],
      concurrency: 1,
      onStarted: (handle) => {
        rerunId = handle.workflowId;
      },
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    await until('the candidate asked', async () => (fx.lp.requestCount(cand.id) > 0 ? true : undefined));
    const handle = fx.temporal.client.workflow.getHandle(rerunId);
    await handle.cancel();
    expect(await running).toBeInstanceOf(Error);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const child = await fx.temporal.client.workflow.getHandle(`${rerunId}.1.1`).describe();
    expect(child.status.name).toBe('CANCELLED');
  });

  it('refuses an empty rerun before it starts, saying why (the CLI exits 2)', async () => {
    const env = cliEnv(worker.taskQueue);
    const none = await runCli(
      ['rerun', '--query', "WorkflowId = 'no-such-workflow-rerun'", '--model', 'local:any'],
      env,
    );
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toMatch(/nothing to rerun: the query found no run/);
  });

  it('`--call` with `--query` skips the runs that lack the call; it refuses only for ids given', async () => {
    const [orig, origB, cand] = [
      model('local', 'qc-orig'),
      model('local', 'qc-orig'),
      model('local', 'qc-cand'),
    ];
    fx.lp.script(orig.id, [toolCall('calculator', { expression: '2 + 2' }), ok('4.')]);
    fx.lp.script(origB.id, [ok('Hi.')]);
    fx.lp.script(cand.id, [ok('Four.')]);
    const turn = await runTurn(fx, worker, { model: orig.name, prompt: '2 + 2?', tools: ['calculator'] });
    const plain = await runCall(fx, worker, { model: origB.name, prompt: 'Hi?' });
    const query = `WorkflowId = '${turn.handle.workflowId}' OR WorkflowId = '${plain.workflowId}'`;
    await until('both in visibility', async () =>
      (await listRuns(fx.temporal.client, query, 5)).length >= 2 ? true : undefined,
    );
    const report = await rerun({ query, callId: 'c2', models: [cand.name] });
    expect(report.pairs.map((p) => [p.source.workflowId, p.source.step])).toEqual([
      [turn.handle.workflowId, 2],
    ]);
    expect(report.skipped).toEqual([
      {
        source: { workflowId: plain.workflowId, runId: expect.any(String), callId: 'c2' },
        reason: expect.stringMatching(/has no call c2 \(its calls: c1\)/),
      },
    ]);
  });

  it('`--limit` counts workflows, not runs: several runs of one id are one workflow', async () => {
    const [orig, cand] = [model('local', 'limit-orig'), model('local', 'limit-cand')];
    fx.lp.script(orig.id, [ok('Old.'), ok('Again.'), ok('Again.')]);
    fx.lp.script(cand.id, [ok('New.'), ok('New.')]);
    const single = await runCall(fx, worker, { model: orig.name, prompt: 'First.' });
    const twice = `rerun-limit-twice-${n}`;
    for (let i = 0; i < 2; i += 1) {
      const handle = await startModelCall(
        fx.temporal.client,
        { model: orig.name, prompt: 'Twice.' },
        { taskQueue: worker.taskQueue, workflowId: twice },
      );
      await handle.result();
    }
    const query = `WorkflowId = '${single.workflowId}' OR WorkflowId = '${twice}'`;
    await until('three runs in visibility', async () =>
      (await listRuns(fx.temporal.client, query, 5)).length >= 3 ? true : undefined,
    );
    const report = await rerun({ query, limit: 2, models: [cand.name] });
    expect(report.pairs.map((p) => p.source.workflowId).sort()).toEqual([single.workflowId, twice].sort());
  });

  it('`--html` into a folder that does not exist is refused before the rerun starts', async () => {
    const orig = model('local', 'html-orig');
    const cand = model('local', 'html-cand');
    fx.lp.script(orig.id, [ok('Yes.')]);
    fx.lp.script(cand.id, [ok('No.')]);
    const call = await runCall(fx, worker, { model: orig.name, prompt: 'Yes?' });
    const env = cliEnv(worker.taskQueue);
    const page = join(tmpdir(), 'no-such-folder-for-rerun', 'report.html');
    const run = await runCli(['rerun', call.workflowId, '--model', cand.name, '--html', page], env);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('--html');
    expect(fx.lp.requestCount(cand.id)).toBe(0);
  });

  it('a budget needs a price for every candidate model', async () => {
    const orig = model('local', 'unpriced-orig');
    fx.lp.script(orig.id, [ok('Yes.')]);
    const call = await runCall(fx, worker, { model: orig.name, prompt: 'Yes?' });
    const refused = await rerun({
      workflowIds: [call.workflowId],
      models: ['local:no-price'],
      budgetUsd: 1,
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.cause).toMatchObject({
      type: 'InvalidRerunInput',
      message: expect.stringMatching(/local:no-price has no `pricing`/),
    });
  });
});

describe('a rerun reads recorded requests through the payload store, and reports one whose object is gone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-rerun-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A converter of its own each time: a codec remembers what it read, and the rerun's must read the store. */
  const converter = (): DataConverter => createDataConverter({ payloadStore: new FolderPayloadStore(dir) });

  it('skips the call whose stored request is gone, naming why, and reruns the others', async () => {
    const fx = await modelCallFixture({ dataConverter: converter() });
    try {
      const worker = await fx.temporal.startWorker({
        deps: { providers: fx.providers },
        dataConverter: converter(),
      });
      const [orig, origB, cand] = [fx.model('store-orig'), fx.model('store-orig'), fx.model('store-cand')];
      fx.lp.script(orig.id, [ok('Long.')]);
      fx.lp.script(origB.id, [ok('Short.')]);
      fx.lp.script(cand.id, [ok('Short too.')]);
      const long = await runCall(fx, worker, {
        model: orig.name,
        system: `You are the archivist. ${'Keep every answer short and exact. '.repeat(100)}`,
        prompt: 'Summarize.',
      });
      const short = await runCall(fx, worker, { model: origB.name, prompt: 'Hello?' });
      const stored = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
        statSync(join(dir, f)).isFile(),
      );
      expect(stored).toHaveLength(1);
      rmSync(join(dir, stored[0] as string));

      const fresh = await modelCallFixture({ dataConverter: converter() });
      try {
        const report = await rerunCalls(fresh.temporal.client, {
          workflowIds: [long.workflowId, short.workflowId],
          models: [cand.name],
          taskQueue: worker.taskQueue,
        });
        expect(report.skipped).toEqual([
          {
            source: { workflowId: long.workflowId, runId: expect.any(String), callId: 'c1' },
            reason: expect.stringMatching(/^its recorded request cannot be read: .*not in the payload store/),
          },
        ]);
        expect(report.pairs.map((p) => [p.source.workflowId, p.candidates[0]?.text])).toEqual([
          [short.workflowId, 'Short too.'],
        ]);
        expect(fx.lp.requestCount(cand.id)).toBe(1);
        // With only the unreadable one, nothing is left to rerun: refused before start, saying why.
        await expect(
          rerunCalls(fresh.temporal.client, {
            workflowIds: [long.workflowId],
            models: [cand.name],
            taskQueue: worker.taskQueue,
          }),
        ).rejects.toThrow(/nothing to rerun: .*its recorded request cannot be read/);
      } finally {
        await fresh.close();
      }
    } finally {
      await fx.close();
    }
  });
});
