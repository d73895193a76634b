import { describe, expect, it } from 'vitest';
import { cutMidBody, dropBeforeResponse, echoAuth, fail, ok, slow } from '../../loopback/index.js';
import { checkModelCall, startModelCall } from '../../client/model-call-client.js';
import { InvalidRetryPlanError } from '../../policy/index.js';
import { runCall, story, TEST_API_KEY } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

describe('a durable model call classifies what went wrong', () => {
  const { fx, worker } = useFixture();

  it('refuses an invalid plan before anything starts, naming the field', async () => {
    const m = fx.model();
    const workflowId = `refused-${m.id}`;
    const start = startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', retry: { waits: [] } },
      { taskQueue: worker.taskQueue, workflowId },
    );
    await expect(start).rejects.toBeInstanceOf(InvalidRetryPlanError);
    await expect(start).rejects.toThrow(/waits/);
    await expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
    expect(() =>
      checkModelCall({ model: m.name, prompt: 'x', retry: { deadlineInMs: 5000, reserveMs: 60000 } }),
    ).toThrow(/reserveMs/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('retries a refused connection as ConnectFailed', async () => {
    const run = await runCall(fx, worker, {
      model: 'dead:nothing-listens',
      prompt: 'hi',
      retry: { waits: [10, 10] },
    });
    expect(story(run.records).map((r) => r.class)).toEqual([
      'ConnectFailed',
      'ConnectFailed',
      'ConnectFailed',
    ]);
    expect(run.records[0]?.failure?.action).toBe('retry-same');
    expect(run.details?.stopReason).toBe('attempts-exhausted');
  });

  it('records a connection dropped after sending as ConnectionLost, and one cut mid-body too', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      dropBeforeResponse(),
      cutMidBody(0.5, { text: 'a long answer that will be cut in two' }),
      ok('whole'),
    ]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(story(run.records).map((r) => r.class)).toEqual(['ConnectionLost', 'ConnectionLost', undefined]);
    expect(run.result?.output.text).toBe('whole');
  });

  it('records a provider slower than the attempt timeout as ResponseTimeout from the activity, not WorkerLost', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [slow(5000, ok('too late')), ok('in time')]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'hi',
      retry: { waits: [10], attemptTimeoutMs: 1000, minAttemptMs: 500 },
    });
    expect(run.records[0]?.failure?.class).toBe('ResponseTimeout');
    const failedEvent = (run.history.events ?? []).find((e) => e.activityTaskFailedEventAttributes);
    expect(failedEvent?.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type).toBe(
      'ResponseTimeout',
    );
    expect(run.result?.output.text).toBe('in time');
  });

  it('sends `<workflowId>/<modelCallId>` as X-Request-Id', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(500), ok('ok')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(fx.lp.requests(m.id).map((r) => r.headers['x-request-id'])).toEqual(
      run.records.map((r) => `${run.workflowId}/${r.modelCallId}`),
    );
  });

  it('keeps the API key out of the history even when the provider echoes the Authorization header', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [echoAuth(401)]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(fx.lp.requests(m.id)[0]?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(run.records[0]?.failure?.class).toBe('AuthFailed');
    expect(run.historyJson).not.toContain(TEST_API_KEY);
    expect(run.historyJson).not.toContain(TEST_API_KEY.slice(0, 20));
  });

  it("reports the successful attempt's usage and bills every attempt that reported usage", async () => {
    const [a, b] = [fx.model('a'), fx.model('b')];
    fx.lp.script(a.id, [ok('', { usage: { inputTokens: 7, outputTokens: 0 } })]);
    fx.lp.script(b.id, [ok('answer', { usage: { inputTokens: 11, outputTokens: 5 } })]);
    const run = await runCall(fx, worker, { model: [a.name, b.name], prompt: 'hi', retry: { waits: [10] } });
    expect(run.records[0]?.failure?.class).toBe('ParseFailed');
    expect(run.result?.usage).toMatchObject({ inputTokens: 11, outputTokens: 5 });
    expect(run.result?.billed).toMatchObject({ attempts: 2, inputTokens: 18, outputTokens: 5 });
  });
});
