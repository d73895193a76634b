import { jsonSchema, tool, zodSchema } from 'ai';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import type { ModelCallInput } from '../../../common/call.js';
import {
  InvalidModelCallInputError,
  plainTools,
  toolsOf,
  validateCallInput,
} from '../../../common/call-input/call-input.js';

const CITY = {
  type: 'object' as const,
  properties: { city: { type: 'string' as const } },
  required: ['city'],
};
const zodCity = z.object({ city: z.string() });
/** What the provider gets for the `weather` tool, whatever shape it was given in. */
const weather = (inputSchema: Record<string, unknown> = CITY) => ({
  type: 'function' as const,
  name: 'weather',
  description: 'the weather in a city',
  inputSchema,
});
const fromZod = { $schema: 'http://json-schema.org/draft-07/schema#', ...CITY, additionalProperties: false };

describe("a call's tools", () => {
  it.each([
    ['our list', [weather()], [weather()]],
    [
      "the AI SDK's record with a JSON Schema",
      { weather: { description: 'the weather in a city', inputSchema: CITY } },
      [weather()],
    ],
    [
      "the AI SDK's record with jsonSchema()",
      { weather: { description: 'the weather in a city', inputSchema: jsonSchema(CITY) } },
      [weather()],
    ],
    [
      "the AI SDK's tool() with zodSchema()",
      { weather: tool({ description: 'the weather in a city', inputSchema: zodSchema(zodCity) }) },
      [weather(fromZod)],
    ],
    [
      "the AI SDK's tool() with a zod schema (Standard JSON Schema)",
      { weather: tool({ description: 'the weather in a city', inputSchema: zodCity }) },
      [weather({ $schema: 'http://json-schema.org/draft-07/schema#', ...CITY })],
    ],
    [
      'a jsonSchema() that went through JSON (a workflow started by other means)',
      JSON.parse(
        JSON.stringify({ weather: { description: 'the weather in a city', inputSchema: jsonSchema(CITY) } }),
      ),
      [weather()],
    ],
    [
      'a schema without a type (left to the provider)',
      [{ name: 'weather', inputSchema: { properties: {} } }],
      [{ type: 'function', name: 'weather', inputSchema: { properties: {} } }],
    ],
    [
      'a record without descriptions',
      { a: { inputSchema: CITY }, b: { inputSchema: CITY } },
      [
        { type: 'function', name: 'a', inputSchema: CITY },
        { type: 'function', name: 'b', inputSchema: CITY },
      ],
    ],
    [
      "a function tool's strict, input examples and provider options",
      {
        weather: {
          type: 'function',
          inputSchema: CITY,
          strict: true,
          inputExamples: [{ input: { city: 'Oslo' } }],
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      },
      [
        {
          type: 'function',
          name: 'weather',
          inputSchema: CITY,
          strict: true,
          inputExamples: [{ input: { city: 'Oslo' } }],
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
    ],
    [
      'a provider-defined tool in the record, named by its key',
      { search: { type: 'provider', id: 'openai.web_search', args: { searchContextSize: 'low' } } },
      [{ type: 'provider', id: 'openai.web_search', name: 'search', args: { searchContextSize: 'low' } }],
    ],
    [
      'a provider-defined tool in our list, without args',
      [{ type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search' }],
      [{ type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: {} }],
    ],
    [
      "a provider-defined tool under the AI SDK 5 type name ('provider-defined')",
      { code: { type: 'provider-defined', id: 'openai.code_interpreter', args: {} } },
      [{ type: 'provider', id: 'openai.code_interpreter', name: 'code', args: {} }],
    ],
    [
      'a function tool beside a provider-defined one, in the order given',
      { weather: { inputSchema: CITY }, search: { type: 'provider', id: 'openai.web_search', args: {} } },
      [
        { type: 'function', name: 'weather', inputSchema: CITY },
        { type: 'provider', id: 'openai.web_search', name: 'search', args: {} },
      ],
    ],
  ])('takes %s, as our plain list', (_name, tools, expected) => {
    expect(toolsOf(tools)).toEqual(expected);
    expect(() => validateCallInput({ model: 'local:m', prompt: 'hi', tools })).not.toThrow();
  });

  it('are plain JSON once converted, so they cross Temporal as they are', () => {
    const input: ModelCallInput = {
      model: 'local:m',
      prompt: 'hi',
      tools: { weather: tool({ description: 'the weather in a city', inputSchema: zodCity }) },
    };
    const plain = plainTools(input);
    expect(JSON.parse(JSON.stringify(plain))).toEqual(plain);
    expect(plain.tools).toEqual([weather({ $schema: 'http://json-schema.org/draft-07/schema#', ...CITY })]);
    expect(plainTools({ model: 'local:m', prompt: 'hi' })).toEqual({ model: 'local:m', prompt: 'hi' });
    expect(plainTools({ model: 'local:m', prompt: 'hi', tools: {} })).toEqual({
      model: 'local:m',
      prompt: 'hi',
    });
  });

  it.each([
    [
      'an AI SDK tool with execute (a call runs no tool)',
      { weather: tool({ description: 'w', inputSchema: zodCity, execute: async () => 'sunny' }) },
      /^`tools\.weather\.execute`: a model call asks the model and returns its tool calls \(`output\.toolCalls`\); it runs no tool.*Leave `execute` out.*createActivities\(\{ tools \}\)/,
    ],
    [
      'a zod schema that went through JSON',
      JSON.parse(JSON.stringify({ weather: { inputSchema: zodCity } })),
      /^`tools\.weather\.inputSchema`: is a zod schema, or one that went through JSON: give its JSON Schema \(`z\.toJSONSchema\(schema\)`/,
    ],
    [
      'a validator with no JSON Schema',
      { weather: { inputSchema: { '~standard': { vendor: 'valibot', version: 1, validate: () => ({}) } } } },
      /^`tools\.weather\.inputSchema`: is a valibot schema with no JSON Schema to send/,
    ],
    [
      'a provider-defined tool without its provider in the id',
      { search: { type: 'provider', id: 'web_search', args: {} } },
      /^`tools\.search\.id`: a provider-defined tool names its provider and tool: `anthropic\.web_search_20250305`/,
    ],
    [
      'a provider-defined tool without an id',
      [{ type: 'provider', name: 'search' }],
      /^`tools\[0\]\.id`: a provider-defined tool names its provider/,
    ],
    [
      'a provider-defined tool whose args are no object',
      { search: { type: 'provider', id: 'openai.web_search', args: 'low' } },
      /^`tools\.search\.args`: must be an object of the tool's arguments/,
    ],
    [
      "a function in a provider-defined tool's args",
      { search: { type: 'provider', id: 'openai.web_search', args: { filter: () => true } } },
      /^`tools\.search\.args\.filter`: is a function, not JSON data/,
    ],
    [
      'a provider-defined tool in our list with a bad name',
      [{ type: 'provider', id: 'openai.web_search', name: 'web search' }],
      /^`tools\[0\]\.name`: a tool name is 1 to 64/,
    ],
    [
      'a tool type that is neither function nor provider',
      { weather: { type: 'mcp', inputSchema: CITY } },
      /^`tools\.weather\.type`: "mcp" is not a tool type/,
    ],
    [
      'a strict that is no boolean',
      { weather: { inputSchema: CITY, strict: 'yes' } },
      /^`tools\.weather\.strict`: must be a boolean/,
    ],
    [
      'the AI SDK 4 name',
      { weather: { parameters: CITY } },
      /^`tools\.weather\.parameters`: the AI SDK \(5 and later\) calls it `inputSchema`/,
    ],
    [
      'an unknown tool field',
      { weather: { inputSchema: CITY, needsApproval: true } },
      /^`tools\.weather\.needsApproval`: not supported; a tool here has `description`, `inputSchema`, `type`, `strict`/,
    ],
    [
      'a tool without a schema',
      { weather: { description: 'w' } },
      /^`tools\.weather\.inputSchema`: must be a JSON Schema of an object/,
    ],
    [
      'a schema of a string',
      { weather: { inputSchema: { type: 'string' } } },
      /^`tools\.weather\.inputSchema\.type`: must be "object": providers take an object schema/,
    ],
    [
      'a function inside a schema',
      {
        weather: {
          inputSchema: { type: 'object', properties: { city: { type: 'string', format: () => 'x' } } },
        },
      },
      /^`tools\.weather\.inputSchema\.properties\.city\.format`: is a function, not JSON data/,
    ],
    [
      'a bad record name',
      { 'get weather': { inputSchema: CITY } },
      /^`tools\["get weather"\]`: a tool name is 1 to 64 letters/,
    ],
    [
      'a tool that is no object',
      { weather: 'sunny' },
      /^`tools\.weather`: must be `\{ description, inputSchema \}`/,
    ],
    [
      'tools as text',
      'weather',
      /^`tools`: give `\[\{ name, description, inputSchema \}\]`, or the AI SDK's record/,
    ],
    ['a list entry without a name', [{ inputSchema: CITY }], /^`tools\[0\]\.name`: a tool name is 1 to 64/],
    [
      'a list entry with an unknown field',
      [{ ...weather(), execute: 1 }],
      /^`tools\[0\]\.execute`: unknown field; a tool has name, description, inputSchema/,
    ],
    ['a name twice', [weather(), weather()], /^`tools`: names the tool "weather" twice/],
    [
      'a description computed from a context',
      { weather: { description: () => 'w', inputSchema: CITY } },
      /^`tools\.weather\.description`: must be a string: a description computed from a context cannot cross/,
    ],
    [
      'a description that is no string',
      { weather: { description: 3, inputSchema: CITY } },
      /^`tools\.weather\.description`: must be a string/,
    ],
  ])('refuses %s, naming the field and the fix', (_name, tools, message) => {
    const input = { model: 'local:m', prompt: 'hi', tools };
    expect(() => validateCallInput(input)).toThrow(InvalidModelCallInputError);
    expect(() => validateCallInput(input)).toThrow(message);
  });

  it("refuses the AI SDK's record on an agent turn, whose tools are names of the worker's", () => {
    expect(() =>
      checkAgentTurn({ model: 'local:m', prompt: 'hi', tools: { weather: { inputSchema: CITY } } as never }),
    ).toThrow(
      /^`tools`: a turn's tools run in the worker, so it takes their names.*createActivities\(\{ tools \}\)/,
    );
  });
});
