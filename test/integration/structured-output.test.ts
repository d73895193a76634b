import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { always, ok, toolCall } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { InvalidModelCallInputError } from '../../common/call-input/call-input.js';
import { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import type { ModelCallInput } from '../../common/call.js';
import { runCli } from '../harness/cli.js';
import { finishCall, runCall } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';

const CITY = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

type SentMessage = { role: string; content: unknown };
type SentBody = { messages: SentMessage[]; response_format?: unknown };

/** The messages the provider received in request `n` (0-based) for model `id`, as `role: text` lines. */
const sent = (requests: readonly { body: unknown }[], n: number): SentBody => requests[n]?.body as SentBody;
const texts = (body: SentBody) => body.messages.map((m) => `${m.role}: ${String(m.content)}`);

/**
 * Structured output on the loopback provider: the activity asks for JSON natively (OpenAI-compatible:
 * `json_object` plus the schema as instructions; Anthropic: its forced `json` tool), validates the answer, and a
 * `SchemaMismatch` is repaired on the same backend with the validator's error in the conversation.
 */
describe('structured output: a schema, validated answers, and repairs', () => {
  const { fx, worker, env } = useFixture();

  it('repairs an answer that fails the schema: the second request carries the bad answer and the validator error', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      ok('{"city": "Paris", "population": "two million"}'),
      ok('{"city":"Paris","population":2100000}'),
    ]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'The largest city of France, as JSON.',
      output: { schema: CITY },
      retry: { waits: [10] },
    });
    expect(run.result?.output.object).toEqual({ city: 'Paris', population: 2100000 });
    expect(run.result?.stopReason).toBe('succeeded');
    const [first, second] = run.records;
    expect(first).toMatchObject({
      outcome: 'failed',
      finishReason: 'stop',
      retryInMs: 0,
      failure: { class: 'SchemaMismatch', action: 'repair', status: 200 },
    });
    expect(first?.failure?.message).toBe(
      'the answer does not match output.schema: /population: must be integer',
    );
    expect(second).toMatchObject({ outcome: 'succeeded', finishReason: 'stop', backend: 0 });

    const requests = fx.lp.requests(m.id);
    expect(requests).toHaveLength(2);
    // OpenAI-compatible servers are asked for a JSON object, with the schema as instructions.
    expect(sent(requests, 0).response_format).toEqual({ type: 'json_object' });
    expect(texts(sent(requests, 0))).toEqual([
      `system: ${'Answer with a single JSON value only (no prose, no code fence) that validates against this JSON Schema:\n'}${JSON.stringify(CITY)}`,
      'user: The largest city of France, as JSON.',
    ]);
    const repaired = texts(sent(requests, 1));
    expect(repaired.slice(0, 2)).toEqual(texts(sent(requests, 0)));
    expect(repaired[2]).toBe('assistant: {"city": "Paris", "population": "two million"}');
    expect(repaired[3]).toContain('- /population: must be integer');
  });

  it('a model that never complies: each backend gets its repairs, is dropped, and the call ends non-retryable', async () => {
    const a = fx.model('never');
    const b = fx.model('never');
    fx.lp.script(a.id, [always(ok('{"city": "Paris"}'))]);
    fx.lp.script(b.id, [always(ok('not JSON at all'))]);
    const run = await runCall(fx, worker, {
      model: [a.name, b.name],
      prompt: 'A city as JSON.',
      output: { schema: CITY, repairs: 1 },
      retry: { waits: [10] },
    });
    expect(run.details?.stopReason).toBe('non-retryable');
    expect(run.details?.lastDecision.why).toMatch(/every backend is dropped/);
    expect(run.records.map((r) => [r.backend, r.failure?.class, r.failure?.action])).toEqual([
      [0, 'SchemaMismatch', 'repair'],
      [0, 'SchemaMismatch', 'drop'],
      [1, 'SchemaMismatch', 'repair'],
      [1, 'SchemaMismatch', 'drop'],
    ]);
    expect(run.records[0]?.failure?.message).toMatch(/must have required property 'population'/);
    expect(run.records[2]?.failure?.message).toMatch(/the answer is not JSON/);
    // Another backend gets the original request, not the first backend's corrections.
    const firstOfB = texts(sent(fx.lp.requests(b.id), 0));
    expect(firstOfB).toEqual(texts(sent(fx.lp.requests(a.id), 0)));
    expect(texts(sent(fx.lp.requests(b.id), 1))[2]).toBe('assistant: not JSON at all');
  });

  it('an answer cut at the output limit that does not validate is OutputLimit (dropped, never repaired)', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('{"city": "Par', { finishReason: 'length' })]);
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'A city as JSON.',
      output: { schema: CITY },
      settings: { maxOutputTokens: 5 },
      retry: { waits: [10] },
    });
    expect(run.records).toHaveLength(1);
    expect(run.records[0]).toMatchObject({
      finishReason: 'length',
      failure: { class: 'OutputLimit', action: 'drop' },
    });
    expect(run.details?.stopReason).toBe('non-retryable');
  });

  it('model-retry call --schema FILE repairs and prints the parsed object', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('{"city": "Paris"}'), ok('{"city": "Paris", "population": 2100000}')]);
    const dir = mkdtempSync(join(tmpdir(), 'schema-'));
    const file = join(dir, 'city.json');
    writeFileSync(file, JSON.stringify(CITY));
    try {
      const { code, stdout, stderr } = await runCli(
        ['call', '--model', m.name, '--prompt', 'A city as JSON.', '--schema', file, '--waits', '10'],
        env,
      );
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ city: 'Paris', population: 2100000 });
      expect(texts(sent(fx.lp.requests(m.id), 1))[3]).toContain(
        "- /: must have required property 'population'",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes Anthropic's answer through its forced json tool", async () => {
    const m = fx.model();
    const id = m.id;
    fx.lp.script(id, [toolCall('json', { city: 'Lyon', population: 520000 })]);
    const run = await runCall(fx, worker, {
      model: `claude:${id}`,
      prompt: 'A city as JSON.',
      output: { schema: CITY },
    });
    expect(run.result?.output.object).toEqual({ city: 'Lyon', population: 520000 });
    const body = fx.lp.requests(id)[0]?.body as { tools?: { name: string; input_schema: unknown }[] };
    expect(body.tools?.map((t) => t.name)).toEqual(['json']);
    expect(body.tools?.[0]?.input_schema).toMatchObject({ properties: CITY.properties });
  });
});

describe('structured output is checked before anything starts', () => {
  const { fx, worker } = useFixture();
  const refused = async (input: ModelCallInput, message: RegExp) => {
    const workflowId = `refused-${randomUUID()}`;
    const start = startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue, workflowId });
    await expect(start).rejects.toBeInstanceOf(InvalidModelCallInputError);
    await expect(start).rejects.toThrow(message);
    await expect(fx.temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
  };

  it('refuses stream with a schema (naming both), a schema that does not compile, and repairs out of range', async () => {
    const m = fx.model();
    await refused(
      { model: m.name, prompt: 'x', stream: true, output: { schema: CITY } },
      /^`stream`: cannot be used with `output\.schema`/,
    );
    await refused(
      { model: m.name, prompt: 'x', output: { schema: { type: 'nope' } } },
      /^`output\.schema`: is not a JSON Schema that compiles \(schema is invalid/,
    );
    await refused(
      { model: m.name, prompt: 'x', output: { schema: CITY, repairs: 11 } },
      /^`output\.repairs`: must be a whole number from 0 to 10/,
    );
    await refused(
      { model: m.name, prompt: 'x', output: { schema: 'CITY' as unknown as Record<string, unknown> } },
      /^`output\.schema`: must be a JSON Schema object/,
    );
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('fails a workflow started without the client whose schema does not compile as BadRequest, sending nothing', async () => {
    // The `dead` backend has no server: had the request been sent, the attempt would be ConnectFailed.
    const run = await finishCall(
      fx,
      await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue: worker.taskQueue,
        workflowId: `bad-schema-${randomUUID()}`,
        args: [
          {
            model: 'dead:bad-schema',
            prompt: 'x',
            output: { schema: { $ref: '#/nowhere' } },
            retry: { waits: [10] },
          },
        ],
      }),
    );
    expect(run.records).toHaveLength(1);
    expect(run.records[0]?.failure).toMatchObject({ class: 'BadRequest', action: 'abort' });
    expect(run.records[0]?.failure?.message).toMatch(/^`output\.schema` is not a JSON Schema that compiles/);
    expect(run.details?.stopReason).toBe('non-retryable');
  });
});
