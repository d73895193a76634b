import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { hang, ok, toolCall } from '../../loopback/index.js';
import { readCallHistory } from '../../client/history-reader.js';
import { callReport } from '../../client/call-report.js';
import { describeReport } from '../../cli/history.js';
import { runTurn } from '../harness/agent-turn.js';
import { TEST_SECRETS, runCall, story } from '../harness/model-call.js';
import { settle } from '../harness/settle.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { useFixture } from '../harness/fixture.js';
import type { TestWorker } from '../harness/temporal.js';

/** An answer with no content that the provider still billed: a `ParseFailed` that reports its usage. */
const billedEmpty = (inputTokens: number, outputTokens: number) =>
  ok('', { usage: { inputTokens, outputTokens } });

/** A JSON Schema the repair test's answers are checked against. */
const CITY = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
};

/** USD per million tokens of the priced test models. */
const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

describe('a budget bounds what a call and a turn may spend, failed attempts included', () => {
  const { fx, worker } = useFixture();
  /** A worker whose providers file prices `priced:turn-a` and `priced:answers` (and nothing of `bare`). */
  let priced: TestWorker;
  let providers: ReturnType<typeof createProviderRegistry>;

  beforeAll(async () => {
    providers = createProviderRegistry(
      {
        bare: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        priced: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          models: {
            'turn-a': { pricing: PRICE },
            answers: { pricing: PRICE },
            'no-config': { pricing: PRICE },
          },
        },
      },
      { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey } },
    );
    priced = await fx.temporal.startWorker({ deps: { providers } });
  });

  it('stops `budget` after two failed attempts that were billed, before a third would pass it', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [billedEmpty(100, 150), billedEmpty(100, 150), ok('never sent')]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      settings: { maxOutputTokens: 200 },
      retry: { waits: [10, 10, 10] },
      // 2 x 250 billed + the next worst case (100 reported input + 200 output) = 800 > 700.
      budget: { maxTotalTokens: 700 },
    });
    expect(run.details?.stopReason).toBe('budget');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ParseFailed', action: 'advance', retryInMs: 10 },
      { backend: 0, outcome: 'failed', class: 'ParseFailed', action: 'advance' },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(2);
    expect(run.details?.spent).toEqual({ inputTokens: 200, outputTokens: 300, totalTokens: 500, costUsd: 0 });
    expect(run.details?.lastDecision.why).toContain(
      "`budget.maxTotalTokens` (700): spent 500 + the next attempt's worst case 300",
    );
    // The history alone says why and what was spent.
    const report = callReport(run.workflowId, readCallHistory(run.history));
    expect(report).toMatchObject({ stopReason: 'budget', spent: { totalTokens: 500 } });
    expect(describeReport(report).join('\n')).toMatch(/stopped by its budget: .*budget\.maxTotalTokens/);
  });

  it('counts a timed-out attempt at its worst case: it may have been billed with no answer recorded', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [hang(), ok('never sent')]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      settings: { maxOutputTokens: 300 },
      retry: { waits: [10], attemptTimeoutMs: 2000 },
      // One worst case (a few input tokens + 300) fits; two do not.
      budget: { maxTotalTokens: 500 },
    });
    expect(run.details?.stopReason).toBe('budget');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ResponseTimeout', action: 'advance' },
    ]);
    expect(run.details?.spent?.outputTokens).toBe(300);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('counts what a repair adds to the input (the bad answer and the errors) before repairing', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      ok('{"city": "Paris", "population": "two million"}', {
        usage: { inputTokens: 100, outputTokens: 400 },
      }),
      ok('{"city":"Paris","population":2100000}'),
    ]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'The largest city of France, as JSON.',
      output: { schema: CITY },
      settings: { maxOutputTokens: 50 },
      // The repair sends the 100 input tokens again plus the 400-token bad answer and the errors: 100 spent + over
      // 500 of input passes 400, where the input count alone (100 + 100) would fit.
      budget: { maxInputTokens: 400 },
    });
    expect(run.details?.stopReason).toBe('budget');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'SchemaMismatch', action: 'repair' },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(1);
    expect(run.details?.lastDecision.why).toMatch(
      /`budget\.maxInputTokens` \(400\): spent 100 \+ the next attempt's worst case 5\d\d on /,
    );
  });

  it('a cost budget on a backend without a price fails it as Misconfigured naming `pricing`, before any request', async () => {
    fx.lp.script('answers', [ok('priced answer', { usage: { inputTokens: 1000, outputTokens: 500 } })]);
    const run = await runCall(fx, priced, {
      model: ['bare:unpriced', 'priced:answers'],
      prompt: 'hi',
      retry: { waits: [10] },
      budget: { maxCostUsd: 1 },
    });
    expect(run.result?.output.text).toBe('priced answer');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'Misconfigured', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'succeeded' },
    ]);
    expect(run.records[0]?.failure?.message).toContain('`pricing`');
    expect(fx.lp.requestCount('unpriced')).toBe(0);
    // No reported cost: the price counts (1000 x 1 + 500 x 2 USD per million tokens).
    expect(run.result?.spent?.costUsd).toBeCloseTo(0.002, 9);
  });

  it('a cost budget fails closed when the worker cannot say its prices (no modelRetryConfig answer)', async () => {
    // A worker of the user's own without model-retry's config activity: the attempt activity would price the
    // answer, but the workflow learns no price, so a cost budget cannot be checked and stops before any request.
    const { modelRetryConfig: _unanswered, ...activities } = createActivities({ providers });
    fx.lp.script('no-config', [ok('counted as free', { usage: { inputTokens: 1000, outputTokens: 500 } })]);
    const native = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const taskQueue = `no-config-${randomUUID()}`;
      const plain = await Worker.create({
        connection: native,
        namespace: inject('temporalNamespace'),
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities,
      });
      const { failure } = await plain.runUntil(async () => {
        const input = { model: 'priced:no-config', prompt: 'hi', budget: { maxCostUsd: 0.001 } };
        return settle(await startModelCall(fx.temporal.client, input, { taskQueue }));
      });
      const details = failure?.details?.[0] as ModelCallFailedDetails | undefined;
      expect(details?.stopReason).toBe('budget');
      expect(details?.attempts).toEqual([]);
      expect(fx.lp.requestCount('no-config')).toBe(0);
      expect(details?.lastDecision.why).toContain('`modelRetryConfig`');
      expect(details?.lastDecision.why).toContain('`pricing`');
    } finally {
      await native.close();
    }
  });

  it('stops a turn `budget` when its second model call would pass the turn’s budget', async () => {
    fx.lp.script('turn-a', [
      toolCall('calculator', { expression: '6 * 7' }, { usage: { inputTokens: 1000, outputTokens: 500 } }),
      ok('never sent'),
    ]);
    const run = await runTurn(fx, priced, {
      model: 'priced:turn-a',
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
      settings: { maxOutputTokens: 500 },
      // Step 1 spends 0.002 USD; step 2's worst case (its input estimate + 500 output tokens) is over 0.001 more.
      budget: { maxCostUsd: 0.0025 },
    });
    expect(run.result?.stopReason).toBe('budget');
    expect(run.result?.why).toMatch(
      /^model call c2: before the first attempt, `budget.maxCostUsd` \(0.0025\)/,
    );
    expect(run.result?.steps.map((s) => [s.attempts.length, s.stopReason])).toEqual([
      [1, undefined],
      [0, 'budget'],
    ]);
    expect(run.result?.messages.map((msg) => msg.role)).toEqual(['assistant', 'tool']);
    expect(run.result?.spent?.costUsd).toBeCloseTo(0.002, 9);
    expect(fx.lp.requestCount('turn-a')).toBe(1);
  });

  it('carries what a turn spent across continue-as-new: the fourth call is stopped by what the first three spent', async () => {
    const m = fx.model();
    const step = (n: number) =>
      toolCall(
        'calculator',
        { expression: `${n} * 10` },
        { usage: { inputTokens: 1000, outputTokens: 1000 } },
      );
    fx.lp.script(m.id, [step(1), step(2), step(3), ok('never sent')]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Count in tens',
      tools: ['calculator'],
      settings: { maxOutputTokens: 100 },
      // A low history limit makes the turn continue as new between steps.
      retry: { waits: [10], historyLimit: { events: 60 } },
      // 3 x 2000 spent; any fourth call's worst case (at least its 100 output tokens) passes 6050.
      budget: { maxTotalTokens: 6050 },
    });
    expect(run.result?.runs).toBeGreaterThan(1);
    expect(run.result?.stopReason).toBe('budget');
    expect(run.result?.spent?.totalTokens).toBe(6000);
    expect(run.result?.steps.map((s) => s.attempts.length)).toEqual([1, 1, 1, 0]);
    expect(fx.lp.requestCount(m.id)).toBe(3);
  });
});
