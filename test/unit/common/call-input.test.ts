import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  InvalidModelCallInputError,
  backendsOf,
  checkCallInput,
  messagesOf,
  validateCallInput,
} from '../../../common/call-input/call-input.js';
import { checkModelCall } from '../../../client/model-call-client.js';
import { InvalidRetryPlanError } from '../../../policy/index.js';
import { conversationArb, plainArb } from '../../harness/message-arbitraries.js';

describe('a model call input', () => {
  it('takes one model or a chain of them', () => {
    expect(backendsOf({ model: 'local:fast' })).toEqual(['local:fast']);
    expect(backendsOf({ model: ['a:x', 'b:y/z'] })).toEqual(['a:x', 'b:y/z']);
  });

  it.each([
    [{ model: [], prompt: 'x' }, /`model`: give at least one model/],
    [{ model: 'gpt-4o', prompt: 'x' }, /`model`: "gpt-4o" is not a model name; write it as `provider:model`/],
    [{ model: ['a:x', 'nocolon'], prompt: 'x' }, /`model\[1\]`/],
    [{ model: 'a:x' }, /`prompt`: give a `prompt` or at least one non-system message/],
    [{ model: 'a:x', system: 'only a system message' }, /`prompt`/],
    [{ model: 'a:x', prompt: '' }, /`prompt`: is empty: give the text to send/],
    [{ model: 'a:x', system: 's', prompt: ' \n ' }, /`prompt`: is empty/],
    [
      { model: 'a:x', messages: [{ role: 'user', content: '' }] },
      /`prompt`: give a `prompt` or at least one/,
    ],
    [{ model: 'a:x', prompt: 3 }, /`prompt`: must be a string/],
    [{ model: 'a:x', messages: [{ role: 'robot', content: 'x' }] }, /`messages\[0\]\.role`/],
    [{ model: 'a:x', prompt: 'x', temperature: 1 }, /`temperature`: unknown field/],
    ['just a string', /`input`/],
  ])('refuses %j, naming the field', (input, message) => {
    expect(() => validateCallInput(input)).toThrow(message);
  });

  it('takes a conversation whose last prompt is blank when an earlier message says something', () => {
    expect(() =>
      validateCallInput({ model: 'a:x', messages: [{ role: 'user', content: 'hi' }], prompt: '' }),
    ).not.toThrow();
    expect(() =>
      validateCallInput({
        model: 'a:x',
        messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'calc', args: '{}' }] }],
      }),
    ).not.toThrow();
  });

  it('sends the system message first, then the messages, then the prompt', () => {
    expect(
      messagesOf({
        model: 'a:x',
        system: 's',
        messages: [{ role: 'assistant', content: 'earlier' }],
        prompt: 'now',
      }),
    ).toEqual([
      { role: 'system', content: 's' },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier' }] },
      { role: 'user', content: [{ type: 'text', text: 'now' }] },
    ]);
  });

  it('has its plan checked with it before anything starts', () => {
    expect(() => checkModelCall({ model: 'a:x', prompt: 'x', retry: { waits: [] } })).toThrow(
      InvalidRetryPlanError,
    );
    expect(() =>
      checkModelCall({ model: 'a:x', prompt: 'x', retry: { waits: [10], maxAttempts: 5 } }),
    ).not.toThrow();
  });
});

describe("a call's request, as every attempt sends it", () => {
  const CITY = { type: 'object', properties: { city: { type: 'string' } } };
  const call = (extra: Record<string, unknown>) => ({
    model: 'local:m',
    prompt: 'hi',
    tools: [
      { name: 'weather', inputSchema: CITY },
      { name: 'time', inputSchema: { type: 'object' } },
    ],
    ...extra,
  });
  const refused = (input: unknown) => {
    try {
      checkCallInput(input);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidModelCallInputError);
      return error as InvalidModelCallInputError;
    }
    throw new Error('expected a refusal');
  };

  it('is the spec version, the conversation, and nothing unasked', () => {
    expect(checkCallInput({ model: 'local:m', system: 's', prompt: 'hi' }).request).toEqual({
      spec: 1,
      prompt: [
        { role: 'system', content: 's' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
    });
  });

  it.each([
    [{ type: 'auto' }],
    [{ type: 'none' }],
    [{ type: 'required' }],
    [{ type: 'tool', toolName: 'time' }],
  ])('carries the tool choice %j', (toolChoice) => {
    expect(checkCallInput(call({ toolChoice })).request.toolChoice).toEqual(toolChoice);
  });

  it.each([
    [
      'a tool not given',
      call({ toolChoice: { type: 'tool', toolName: 'calc' } }),
      'toolChoice.toolName',
      /must name one of the call's tools \(weather, time\)/,
    ],
    [
      'a tool without tools',
      { model: 'local:m', prompt: 'hi', toolChoice: { type: 'tool', toolName: 'calc' } },
      'toolChoice.toolName',
      /\(none given\)/,
    ],
    [
      'a tool without a name',
      call({ toolChoice: { type: 'tool' } }),
      'toolChoice.toolName',
      /must name one of/,
    ],
    [
      "a string (the AI SDK's shorthand)",
      call({ toolChoice: 'auto' }),
      'toolChoice',
      /must be `\{ type: 'auto' \| 'none' \| 'required' \}` or `\{ type: 'tool', toolName \}`/,
    ],
    ['an unknown type', call({ toolChoice: { type: 'any' } }), 'toolChoice', /must be/],
  ])('refuses a tool choice of %s', (_name, input, field, message) => {
    const error = refused(input);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('carries a JSON response format without a schema, and a text one', () => {
    expect(checkCallInput(call({ responseFormat: { type: 'json' } })).request.responseFormat).toEqual({
      type: 'json',
    });
    expect(checkCallInput(call({ responseFormat: { type: 'text' } })).request.responseFormat).toEqual({
      type: 'text',
    });
  });

  it.each([
    [
      'with a schema (that is `output`)',
      { responseFormat: { type: 'json', schema: CITY } },
      'responseFormat.schema',
      /give the schema as `output: \{ schema \}`/,
    ],
    [
      'beside `output`',
      { responseFormat: { type: 'json' }, output: { schema: CITY } },
      'responseFormat',
      /not with `output`/,
    ],
    [
      'of an unknown type',
      { responseFormat: { type: 'xml' } },
      'responseFormat',
      /must be `\{ type: 'text' \}` or `\{ type: 'json' \}`/,
    ],
  ])('refuses a response format %s', (_name, extra, field, message) => {
    const error = refused(call(extra));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('carries provider options, headers, tools and settings into the request', () => {
    const { request } = checkCallInput(
      call({
        providerOptions: {
          openai: { reasoningEffort: 'low' },
          anthropic: { cacheControl: { type: 'ephemeral' } },
        },
        headers: { 'x-request-tag': 'checkout' },
        settings: { temperature: 0, topK: 5 },
      }),
    );
    expect(request).toMatchObject({
      spec: 1,
      providerOptions: {
        openai: { reasoningEffort: 'low' },
        anthropic: { cacheControl: { type: 'ephemeral' } },
      },
      headers: { 'x-request-tag': 'checkout' },
      temperature: 0,
      topK: 5,
      tools: [
        { type: 'function', name: 'weather', inputSchema: CITY },
        { type: 'function', name: 'time', inputSchema: { type: 'object' } },
      ],
    });
    expect(JSON.parse(JSON.stringify(request))).toEqual(request);
  });

  it('leaves out empty headers', () => {
    expect(checkCallInput(call({ headers: {} })).request).not.toHaveProperty('headers');
  });

  it('refuses provider options that are no object', () => {
    const error = refused(call({ providerOptions: 'fast' }));
    expect(error.field).toBe('providerOptions');
  });

  it("converts the AI SDK's messages (bytes as base64, URLs as text) and names a bad one's field", () => {
    const { request } = checkCallInput({
      model: 'local:m',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', image: new Uint8Array([1, 2, 3]) },
            { type: 'file', data: new URL('https://example.com/a.pdf'), mediaType: 'application/pdf' },
          ],
        },
      ],
    });
    expect(request.prompt).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image' },
          {
            type: 'file',
            data: { type: 'url', url: 'https://example.com/a.pdf' },
            mediaType: 'application/pdf',
          },
        ],
      },
    ]);
    const error = refused({
      model: 'local:m',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: [{ type: 'file', data: 'AAAA' }] },
      ],
    });
    expect(error.field).toBe('messages[1].content[0].mediaType');
  });

  it('is JSON, and the same request when its conversation comes back in wire form (as a turn checks it at each step)', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, plainArb), (messages) => {
        const first = checkCallInput({ model: 'local:m', messages, prompt: 'go' }).request;
        expect(JSON.parse(JSON.stringify(first))).toEqual(first);
        expect(checkCallInput({ model: 'local:m', messages: first.prompt }).request).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });

  it('takes a conversation that is only a file', () => {
    expect(() =>
      checkCallInput({
        model: 'local:m',
        messages: [{ role: 'user', content: [{ type: 'file', data: 'AAAA', mediaType: 'application/pdf' }] }],
      }),
    ).not.toThrow();
  });
});
