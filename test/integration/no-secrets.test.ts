import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, inject, it } from 'vitest';
import type { CallOutcome } from '../../cli/call-outcome.js';
import { echoAuth, fail, ok } from '../../loopback/index.js';
import { runCli } from '../harness/cli.js';
import { runCall, TEST_SECRETS } from '../harness/model-call.js';
import { startWorkerProcess } from '../harness/processes.js';
import { findLeaks } from '../harness/secret-scan.js';
import { leakNeedles } from '../harness/secrets.js';
import { useFixture } from '../harness/fixture.js';

/** The part of an exported history event this file edits. */
interface FailedEvent {
  eventId: string;
  activityTaskFailedEventAttributes?: {
    failure: { applicationFailureInfo: { details: { payloads: { data: string }[] } } };
  };
}

/**
 * Providers that repeat what they received (the key, the `Authorization` / `x-api-key` header, a credential
 * header, the request body) in their error's message, code, type and response headers, on 401, 403 and 500;
 * and bodies of a megabyte. Every history these calls leave is scanned by the harness and by the file's sweep
 * (`no-secrets-setup.ts`); here each scenario also checks that the echo really reached the history, scrubbed.
 */
describe('no credential ever reaches a history, whatever the provider echoes', () => {
  const { fx, worker } = useFixture();
  const needles = leakNeedles(TEST_SECRETS);

  it.each([
    [401, 'local', 'authorization', `Bearer ${TEST_SECRETS.apiKey}`],
    [403, 'local', 'authorization', `Bearer ${TEST_SECRETS.apiKey}`],
    [500, 'local', 'authorization', `Bearer ${TEST_SECRETS.apiKey}`],
    [401, 'claude', 'x-api-key', TEST_SECRETS.anthropicKey],
    [403, 'claude', 'x-api-key', TEST_SECRETS.anthropicKey],
    [500, 'claude', 'x-api-key', TEST_SECRETS.anthropicKey],
  ] as const)('a %i from %s echoing %s everywhere', async (status, provider, header, sent) => {
    const { id } = fx.model(provider);
    fx.lp.script(
      id,
      status === 500
        ? [echoAuth(500, { everywhere: true }), ok('fine')]
        : [echoAuth(status, { everywhere: true })],
    );
    const run = await runCall(fx, worker, {
      model: `${provider}:${id}`,
      prompt: 'hi',
      retry: { waits: [10] },
    });
    const received = fx.lp.requests(id)[0]?.headers;
    expect(received?.[header]).toBe(sent);
    if (provider === 'local') expect(received?.['x-proxy-token']).toBe(TEST_SECRETS.proxyToken);
    expect(run.records[0]?.failure).toMatchObject({
      class: status === 500 ? 'ServerError' : 'AuthFailed',
      code: '[redacted]',
      message: expect.stringMatching(/^Incorrect API key provided: \[redacted\]\. Received /) as string,
    });
    // The echo did reach the history (scrubbed): the scan had something to look at.
    expect(run.historyJson).toContain('redacted');
    expect(findLeaks(run.history, needles)).toEqual([]);
    if (status !== 500) expect(run.failure?.message).toContain('AuthFailed');
  });

  it('a 1 MB error body leaves a small history', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      fail(500, { message: `${'x'.repeat(1_000_000)} ${TEST_SECRETS.apiKey}` }),
      ok('fine'),
    ]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.records.map((r) => r.outcome)).toEqual(['failed', 'succeeded']);
    expect(run.records[0]?.failure?.message.length).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(run.historyJson)).toBeLessThan(100_000);
  });

  it("the scan catches a credential put into this file's real history (it is not vacuous)", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [echoAuth(401, { everywhere: true })]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi' });
    const json = JSON.parse(historyToJSON(run.history)) as { events: FailedEvent[] };
    const failed = json.events.find((e) => e.activityTaskFailedEventAttributes);
    const payload =
      failed?.activityTaskFailedEventAttributes?.failure.applicationFailureInfo.details.payloads[0];
    if (payload === undefined) throw new Error('no failed attempt in the history');
    const text = Buffer.from(payload.data, 'base64').toString('utf8');
    payload.data = Buffer.from(text.replace('[redacted]', TEST_SECRETS.apiKey)).toString('base64');
    const leaks = findLeaks(JSON.stringify(json), needles, run.workflowId);
    expect(leaks).toHaveLength(1);
    expect(leaks[0]?.where).toContain(`event ${String(failed?.eventId)} (EVENT_TYPE_ACTIVITY_TASK_FAILED)`);
  });

  it('through the command line too: a worker process and `call --json`, whose output holds no credential', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-secrets-'));
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        local: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          headers: { 'X-Proxy-Token': TEST_SECRETS.proxyToken },
        },
      }),
    );
    const taskQueue = `secrets-${randomUUID()}`;
    const address = inject('temporalAddress');
    const proc = await startWorkerProcess({
      address,
      taskQueue,
      providersFile,
      env: { LOOPBACK_KEY: TEST_SECRETS.apiKey },
    });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [echoAuth(403, { everywhere: true })]);
      const { code, stdout, stderr } = await runCli(
        ['call', '--model', m.name, '--prompt', 'hi', '--waits', '10', '--json'],
        { TEMPORAL_ADDRESS: address, MODEL_RETRY_TASK_QUEUE: taskQueue },
      );
      expect(code, stderr).toBe(1);
      const out = JSON.parse(stdout) as CallOutcome;
      expect(out.attempts[0]?.failure).toMatchObject({ class: 'AuthFailed', code: '[redacted]' });
      for (const needle of needles) expect(stdout + stderr).not.toContain(needle);
      const history = await fx.temporal.client.workflow.getHandle(out.workflowId).fetchHistory();
      expect(historyToJSON(history)).toContain('redacted');
      expect(findLeaks(history, needles)).toEqual([]);
    } finally {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
