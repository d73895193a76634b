import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { always, ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { MAX_MISMATCH_ANSWER_CHARS } from '../../../activities/attempt/structured-output.js';
import { MAX_SCHEMA_ERRORS, schemaErrors, schemaProblem } from '../../../common/json-schema.js';
import {
  LOCAL_KEY,
  attemptFailure,
  builtinRegistry,
  input,
  loopbackRegistry,
  request,
  runAttempt,
} from './helpers.js';

const CITY = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city'],
  additionalProperties: false,
};
const output = { output: { schema: CITY } };

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

describe('the attempt asks each provider family for JSON in its own way', () => {
  it('openai: the schema goes natively as a strict json_schema response format, with no instructions', async () => {
    lp.script('gpt-json', [ok('{"city":"Oslo"}')]);
    const result = await runAttempt(builtinRegistry(lp), input('openai:gpt-json', output)).done;
    expect(result).toMatchObject({ text: '{"city":"Oslo"}', object: { city: 'Oslo' }, finishReason: 'stop' });
    const body = lp.requests('gpt-json')[0]?.body as {
      response_format: unknown;
      messages: { role: string }[];
    };
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'response', strict: true, schema: { properties: CITY.properties } },
    });
    expect(body.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('openai-compatible: json_object, and the schema as instructions after the system messages', async () => {
    lp.script('compat', [ok('```json\n{"city":"Oslo","population":700000}\n```')]);
    const attempt = input('local:compat', {
      ...output,
      request: request([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'a city' },
      ]),
    });
    const result = await runAttempt(loopbackRegistry(lp), attempt).done;
    // A code fence around the JSON (models asked by instructions add one) is not a mismatch.
    expect(result).toMatchObject({ object: { city: 'Oslo', population: 700000 } });
    const body = lp.requests('compat')[0]?.body as {
      response_format: unknown;
      messages: { role: string; content: string }[];
    };
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(body.messages[1]?.content).toContain(JSON.stringify(CITY));
  });

  it('a call without output asks for no JSON and has no object', async () => {
    lp.script('plain', [ok('{"city":"Oslo"}')]);
    const result = await runAttempt(loopbackRegistry(lp), input('local:plain')).done;
    expect(result).not.toHaveProperty('object');
    expect(lp.requests('plain')[0]?.body).not.toHaveProperty('response_format');
  });
});

describe('an answer that does not validate', () => {
  it('fails SchemaMismatch with the answer and the errors in its details, the first error in its message', async () => {
    lp.script('bad', [ok('{"population":"many","extra":1}')]);
    const { failure, details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), input('local:bad', output)).done,
    );
    expect(failure.type).toBe('SchemaMismatch');
    expect(details).toMatchObject({ class: 'SchemaMismatch', status: 200, finishReason: 'stop' });
    expect(details.message).toBe(
      "the answer does not match output.schema: /: must have required property 'city' (and 2 more)",
    );
    expect(details.mismatch).toEqual({
      answer: '{"population":"many","extra":1}',
      errors: [
        "/: must have required property 'city'",
        '/: must NOT have additional properties (extra)',
        '/population: must be integer',
      ],
    });
    expect(details.usage).toBeDefined();
  });

  it('bounds what it carries: a long answer is cut and says so, and the key never appears', async () => {
    const long = `{"city": "${'x'.repeat(MAX_MISMATCH_ANSWER_CHARS)}", "key": "${LOCAL_KEY}"`;
    lp.script('long', [ok(long)]);
    const { details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), input('local:long', output)).done,
    );
    expect(details.mismatch?.answer).toMatch(/\[the answer is cut here: \d+ characters in all\]$/);
    expect(details.mismatch?.answer.length).toBeLessThan(MAX_MISMATCH_ANSWER_CHARS + 100);
    expect(JSON.stringify(details)).not.toContain(LOCAL_KEY);
    expect(details.mismatch?.errors[0]).toMatch(/^\/: the answer is not JSON/);
  });

  it('is OutputLimit when the answer stopped at the output limit, without the repair facts', async () => {
    lp.script('cut', [ok('{"city": "Os', { finishReason: 'length' })]);
    const { details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), input('local:cut', output)).done,
    );
    expect(details.class).toBe('OutputLimit');
    expect(details.finishReason).toBe('length');
    expect(details.mismatch).toBeUndefined();
  });

  it('a valid answer that stopped at the limit is still a success, its finish reason length', async () => {
    lp.script('fits', [always(ok('{"city":"Oslo"}', { finishReason: 'length' }))]);
    const result = await runAttempt(loopbackRegistry(lp), input('local:fits', output)).done;
    expect(result).toMatchObject({ object: { city: 'Oslo' }, finishReason: 'length' });
  });
});

describe('JSON Schema checks (ajv)', () => {
  it('say why a schema does not compile, and nothing for one that does (draft-07 and 2020-12)', () => {
    expect(schemaProblem({ type: 'nope' })).toMatch(/^schema is invalid/);
    expect(schemaProblem({ $ref: '#/nowhere' })).toMatch(/can't resolve reference/);
    expect(schemaProblem(CITY)).toBeUndefined();
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      prefixItems: [{ type: 'string' }],
    };
    expect(schemaProblem(draft2020)).toBeUndefined();
    expect(schemaErrors(draft2020, [1])).toEqual(['/0: must be string']);
  });

  it(`keep at most ${MAX_SCHEMA_ERRORS} errors`, () => {
    const many = { type: 'object', required: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] };
    expect(schemaErrors(many, {})).toHaveLength(MAX_SCHEMA_ERRORS);
    expect(schemaErrors(many, { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 })).toEqual([]);
  });
});
