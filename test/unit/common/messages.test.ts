import type { ModelMessage } from 'ai';
import { convertToLanguageModelPrompt } from 'ai/internal';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidModelCallInputError } from '../../../common/input-error.js';
import { assistantMessageOf, textOfMessage } from '../../../common/assistant-message.js';
import { toWireMessages } from '../../../common/messages.js';
import { toWire } from '../../../common/request.js';
import { conversationArb, plainArb } from '../../harness/message-arbitraries.js';
import type { WireContent, WireMessage } from '../../../common/request.js';

/** Bytes that are no image the AI SDK would recognise (it names the media type of those itself). */
const PDF_BYTES = new Uint8Array([37, 80, 68, 70, 45, 49]); // "%PDF-1"
const PDF_BASE64 = 'JVBERi0x';
const PNG_BASE64 = 'iVBORw0KGgo=';

const user = (content: unknown): unknown => ({ role: 'user', content });
const userParts = (...parts: unknown[]): WireMessage => ({ role: 'user', content: parts as never });
const wire = (messages: unknown[]) => toWireMessages(messages);
const one = (message: unknown) => wire([message])[0];

beforeAll(() => {
  // The AI SDK logs a deprecation for every image part it converts in the comparisons below.
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;
});

describe('toWireMessages: user parts', () => {
  it.each([
    ['a string content', user('hi'), userParts({ type: 'text', text: 'hi' })],
    [
      'a text part with its provider options',
      user([
        { type: 'text', text: 'hi', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
      ]),
      userParts({
        type: 'text',
        text: 'hi',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      }),
    ],
    [
      'an empty text part, left out',
      user([
        { type: 'text', text: '' },
        { type: 'text', text: 'x' },
      ]),
      userParts({ type: 'text', text: 'x' }),
    ],
    [
      'an image without a media type: a file of media type `image`',
      user([{ type: 'image', image: PNG_BASE64 }]),
      userParts({ type: 'file', data: { type: 'data', data: PNG_BASE64 }, mediaType: 'image' }),
    ],
    [
      'an image with its media type and provider options',
      user([
        {
          type: 'image',
          image: PNG_BASE64,
          mediaType: 'image/png',
          providerOptions: { openai: { imageDetail: 'low' } },
        },
      ]),
      userParts({
        type: 'file',
        data: { type: 'data', data: PNG_BASE64 },
        mediaType: 'image/png',
        providerOptions: { openai: { imageDetail: 'low' } },
      }),
    ],
    [
      'an image as bytes',
      user([{ type: 'image', image: new Uint8Array([1, 2, 3]) }]),
      userParts({ type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image' }),
    ],
    [
      'an image as a URL object',
      user([{ type: 'image', image: new URL('https://example.com/cat.png') }]),
      userParts({
        type: 'file',
        data: { type: 'url', url: 'https://example.com/cat.png' },
        mediaType: 'image',
      }),
    ],
    [
      'an image as a URL string',
      user([{ type: 'image', image: 'https://example.com/cat.png' }]),
      userParts({
        type: 'file',
        data: { type: 'url', url: 'https://example.com/cat.png' },
        mediaType: 'image',
      }),
    ],
    [
      'a URL string that is not written as the URL writes itself, kept as given in `originalUrl`',
      user([{ type: 'file', data: 'HTTPS://Example.com', mediaType: 'application/pdf' }]),
      userParts({
        type: 'file',
        data: { type: 'url', url: 'https://example.com/', originalUrl: 'HTTPS://Example.com' },
        mediaType: 'application/pdf',
      }),
    ],
    [
      'a file as bytes, with its file name',
      user([{ type: 'file', data: PDF_BYTES, mediaType: 'application/pdf', filename: 'a.pdf' }]),
      userParts({
        type: 'file',
        data: { type: 'data', data: PDF_BASE64 },
        mediaType: 'application/pdf',
        filename: 'a.pdf',
      }),
    ],
    [
      'a file as an ArrayBuffer',
      user([{ type: 'file', data: PDF_BYTES.buffer.slice(0), mediaType: 'application/pdf' }]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'a file as base64',
      user([{ type: 'file', data: PDF_BASE64, mediaType: 'application/pdf' }]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'a file as a URL',
      user([{ type: 'file', data: new URL('https://example.com/a.pdf'), mediaType: 'application/pdf' }]),
      userParts({
        type: 'file',
        data: { type: 'url', url: 'https://example.com/a.pdf' },
        mediaType: 'application/pdf',
      }),
    ],
    [
      'a file as a data: URL: its bytes and its media type, over the one given',
      user([
        {
          type: 'file',
          data: `data:application/pdf;base64,${PDF_BASE64}`,
          mediaType: 'application/octet-stream',
        },
      ]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'an image as a data: URL object',
      user([{ type: 'image', image: new URL(`data:image/png;base64,${PNG_BASE64}`) }]),
      userParts({ type: 'file', data: { type: 'data', data: PNG_BASE64 }, mediaType: 'image/png' }),
    ],
    [
      'tagged inline data (bytes)',
      user([{ type: 'file', data: { type: 'data', data: PDF_BYTES }, mediaType: 'application/pdf' }]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'tagged inline data (base64)',
      user([{ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'a tagged URL, with its original text',
      user([
        {
          type: 'file',
          data: {
            type: 'url',
            url: new URL('https://example.com/a.pdf'),
            originalUrl: 'https://EXAMPLE.com/a.pdf',
          },
          mediaType: 'application/pdf',
        },
      ]),
      userParts({
        type: 'file',
        data: { type: 'url', url: 'https://example.com/a.pdf', originalUrl: 'https://EXAMPLE.com/a.pdf' },
        mediaType: 'application/pdf',
      }),
    ],
    [
      'a tagged data: URL: its bytes and media type',
      user([
        {
          type: 'file',
          data: { type: 'url', url: new URL(`data:application/pdf;base64,${PDF_BASE64}`) },
          mediaType: 'application/pdf',
        },
      ]),
      userParts({ type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' }),
    ],
    [
      'a tagged provider reference',
      user([
        {
          type: 'file',
          data: { type: 'reference', reference: { openai: 'file-abc' } },
          mediaType: 'application/pdf',
        },
      ]),
      userParts({
        type: 'file',
        data: { type: 'reference', reference: { openai: 'file-abc' } },
        mediaType: 'application/pdf',
      }),
    ],
    [
      'an untagged provider reference',
      user([
        { type: 'file', data: { openai: 'file-abc', anthropic: 'file_01' }, mediaType: 'application/pdf' },
      ]),
      userParts({
        type: 'file',
        data: { type: 'reference', reference: { openai: 'file-abc', anthropic: 'file_01' } },
        mediaType: 'application/pdf',
      }),
    ],
    [
      'tagged inline text',
      user([{ type: 'file', data: { type: 'text', text: '# notes' }, mediaType: 'text/markdown' }]),
      userParts({ type: 'file', data: { type: 'text', text: '# notes' }, mediaType: 'text/markdown' }),
    ],
  ])('%s', (_name, message, expected) => {
    expect(one(message)).toEqual(expected);
  });

  it('keeps a content of one empty text, as the conversion of `""` gives it (so a wire message converts to itself)', () => {
    const empty = [{ type: 'text', text: '' }];
    expect(one(user(''))).toEqual(userParts(...empty));
    expect(one(user(empty))).toEqual(userParts(...empty));
    expect(one({ role: 'assistant', content: '' })).toEqual({ role: 'assistant', content: empty });
    expect(one({ role: 'assistant', content: empty })).toEqual({ role: 'assistant', content: empty });
  });

  it('keeps a message’s provider options', () => {
    expect(one({ role: 'user', content: 'hi', providerOptions: { openai: { store: true } } })).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
      providerOptions: { openai: { store: true } },
    });
    expect(
      one({
        role: 'system',
        content: 's',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      }),
    ).toEqual({
      role: 'system',
      content: 's',
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    });
  });
});

describe('toWireMessages: assistant parts', () => {
  it.each([
    ['a string content', { role: 'assistant', content: 'ok' }, [{ type: 'text', text: 'ok' }]],
    [
      'text, reasoning with its provider options, in order',
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 'sig' } } },
          { type: 'text', text: 'answer' },
        ],
      },
      [
        { type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: 'answer' },
      ],
    ],
    [
      'an empty text left out, unless it carries provider options',
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'text', text: '', providerOptions: { openai: { itemId: 'msg_1' } } },
        ],
      },
      [{ type: 'text', text: '', providerOptions: { openai: { itemId: 'msg_1' } } }],
    ],
    [
      'a tool call, its input as it is',
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } }],
      },
      [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } }],
    ],
    [
      'a provider-executed tool call and its result, with provider options',
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 's1',
            toolName: 'web_search',
            input: { query: 'x' },
            providerExecuted: true,
            providerOptions: { openai: { itemId: 'ws_1' } },
          },
          {
            type: 'tool-result',
            toolCallId: 's1',
            toolName: 'web_search',
            output: { type: 'json', value: [{ url: 'u' }] },
          },
        ],
      },
      [
        {
          type: 'tool-call',
          toolCallId: 's1',
          toolName: 'web_search',
          input: { query: 'x' },
          providerExecuted: true,
          providerOptions: { openai: { itemId: 'ws_1' } },
        },
        {
          type: 'tool-result',
          toolCallId: 's1',
          toolName: 'web_search',
          output: { type: 'json', value: [{ url: 'u' }] },
        },
      ],
    ],
    [
      'a file and a reasoning file, as bytes',
      {
        role: 'assistant',
        content: [
          { type: 'file', data: PDF_BYTES, mediaType: 'application/pdf' },
          { type: 'reasoning-file', data: PDF_BYTES, mediaType: 'application/pdf' },
        ],
      },
      [
        { type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' },
        { type: 'reasoning-file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' },
      ],
    ],
    [
      'a custom part',
      {
        role: 'assistant',
        content: [{ type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'c' } } }],
      },
      [{ type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'c' } } }],
    ],
    [
      "an approval request left out (the AI SDK's bookkeeping)",
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'may I?' },
          { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' },
        ],
      },
      [{ type: 'text', text: 'may I?' }],
    ],
    [
      'the plain shape: tool calls with their JSON text parsed, no empty text beside them',
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 't1', name: 'weather', args: '{"city":"Oslo"}' },
          { id: 't2', name: 'echo', args: 'not json' },
        ],
      },
      [
        { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } },
        { type: 'tool-call', toolCallId: 't2', toolName: 'echo', input: 'not json' },
      ],
    ],
    [
      'the plain shape: text before the tool calls',
      { role: 'assistant', content: 'let me look', toolCalls: [{ id: 't1', name: 'weather', args: '{}' }] },
      [
        { type: 'text', text: 'let me look' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: {} },
      ],
    ],
  ])('%s', (_name, message, content) => {
    expect(one(message)).toEqual({ role: 'assistant', content });
  });
});

describe('toWireMessages: data that only looks special', () => {
  it('keeps a `__proto__` key in a tool-call input and a JSON result as data', () => {
    const input = JSON.parse('{"__proto__":{"x":1},"city":"Oslo"}') as unknown;
    const [assistant, tool] = wire([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'w', input }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'w', output: { type: 'json', value: input } },
        ],
      },
    ]);
    expect(JSON.stringify(assistant)).toContain('"input":{"__proto__":{"x":1},"city":"Oslo"}');
    expect(JSON.stringify(tool)).toContain('"value":{"__proto__":{"x":1},"city":"Oslo"}');
  });
});

describe('toWireMessages: tool results', () => {
  const result = (output: unknown) => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'weather', output }],
  });
  it.each([
    ['text', { type: 'text', value: 'sunny' }],
    ['json', { type: 'json', value: { temp: 21, tags: ['a'], none: null } }],
    ['error-text', { type: 'error-text', value: 'no data' }],
    ['error-json', { type: 'error-json', value: { code: 404 } }],
    ['execution-denied', { type: 'execution-denied', reason: 'the user said no' }],
    ['execution-denied without a reason', { type: 'execution-denied' }],
    [
      'text with provider options',
      { type: 'text', value: 'x', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
    ],
  ])('an output of type %s, as it is', (_name, output) => {
    expect(one(result(output))).toEqual(result(output));
  });

  it('an output of content: text kept, files in wire form', () => {
    const output = {
      type: 'content',
      value: [
        { type: 'text', text: 'the chart' },
        { type: 'file', data: { type: 'data', data: PDF_BYTES }, mediaType: 'application/pdf' },
        {
          type: 'file',
          data: { type: 'url', url: new URL('https://example.com/c.png') },
          mediaType: 'image/png',
        },
        { type: 'image', image: PNG_BASE64 },
      ],
    };
    expect(one(result(output))).toEqual(
      result({
        type: 'content',
        value: [
          { type: 'text', text: 'the chart' },
          { type: 'file', data: { type: 'data', data: PDF_BASE64 }, mediaType: 'application/pdf' },
          { type: 'file', data: { type: 'url', url: 'https://example.com/c.png' }, mediaType: 'image/png' },
          { type: 'file', data: { type: 'data', data: PNG_BASE64 }, mediaType: 'image' },
        ],
      }),
    );
  });

  it.each([
    [
      'file-data',
      { type: 'file-data', data: PDF_BASE64, mediaType: 'application/pdf', filename: 'a.pdf' },
      {
        type: 'file',
        data: { type: 'data', data: PDF_BASE64 },
        mediaType: 'application/pdf',
        filename: 'a.pdf',
      },
    ],
    [
      'image-data',
      { type: 'image-data', data: PNG_BASE64, mediaType: 'image/png' },
      { type: 'file', data: { type: 'data', data: PNG_BASE64 }, mediaType: 'image/png' },
    ],
    [
      'file-url',
      { type: 'file-url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
      { type: 'file', data: { type: 'url', url: 'https://example.com/a.pdf' }, mediaType: 'application/pdf' },
    ],
    [
      'image-url, its text kept where the URL writes itself otherwise',
      { type: 'image-url', url: 'https://Example.com' },
      {
        type: 'file',
        data: { type: 'url', url: 'https://example.com/', originalUrl: 'https://Example.com' },
        mediaType: 'image',
      },
    ],
    [
      'file-id by provider',
      { type: 'file-id', fileId: { openai: 'file-abc' } },
      {
        type: 'file',
        data: { type: 'reference', reference: { openai: 'file-abc' } },
        mediaType: 'application',
      },
    ],
    [
      'image-file-id by provider',
      { type: 'image-file-id', fileId: { anthropic: 'file_01' } },
      { type: 'file', data: { type: 'reference', reference: { anthropic: 'file_01' } }, mediaType: 'image' },
    ],
    [
      'file-reference, with provider options',
      {
        type: 'file-reference',
        providerReference: { openai: 'f' },
        providerOptions: { openai: { detail: 'low' } },
      },
      {
        type: 'file',
        data: { type: 'reference', reference: { openai: 'f' } },
        mediaType: 'application',
        providerOptions: { openai: { detail: 'low' } },
      },
    ],
    [
      'image-file-reference',
      { type: 'image-file-reference', providerReference: { google: 'files/1' } },
      { type: 'file', data: { type: 'reference', reference: { google: 'files/1' } }, mediaType: 'image' },
    ],
    [
      'custom',
      { type: 'custom', providerOptions: { openai: { x: 1 } } },
      { type: 'custom', providerOptions: { openai: { x: 1 } } },
    ],
  ])(
    "turns a content part of the AI SDK's older kind %s into the file part the AI SDK makes of it",
    (_name, given, expected) => {
      expect(one(result({ type: 'content', value: [given] }))).toEqual(
        result({ type: 'content', value: [expected] }),
      );
    },
  );

  it.each([
    [
      { type: 'file-id', fileId: 'file-abc' },
      'messages[0].content[0].output.value[0].fileId',
      /a bare file id names no provider/,
    ],
    [
      { type: 'file-url', url: 'https://example.com/a' },
      'messages[0].content[0].output.value[0].mediaType',
      /is missing/,
    ],
    [
      { type: 'image-url', url: 'https://u:p@example.com/a.png' },
      'messages[0].content[0].output.value[0].data.url',
      /a URL with a user name or password/,
    ],
    [
      { type: 'file-data', data: `data:image/png;base64,${PNG_BASE64}`, mediaType: 'image/png' },
      'messages[0].content[0].output.value[0].data.data',
      /a data URL is not inline data/,
    ],
  ])('refuses the older content part %j, naming the field', (given, field, message) => {
    expect(() => one(result({ type: 'content', value: [given] }))).toThrow(InvalidModelCallInputError);
    try {
      one(result({ type: 'content', value: [given] }));
    } catch (error) {
      expect((error as InvalidModelCallInputError).field).toBe(field);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('keeps a result part’s provider options', () => {
    const message = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't1',
          toolName: 'weather',
          output: { type: 'text', value: 'x' },
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
    };
    expect(one(message)).toEqual(message);
  });

  it('the plain shape: one result per message, an error as error-text', () => {
    expect(
      wire([
        { role: 'tool', toolCallId: 't1', toolName: 'weather', content: 'sunny' },
        { role: 'tool', toolCallId: 't2', toolName: 'weather', content: 'no data', isError: true },
      ]),
    ).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'weather',
            output: { type: 'text', value: 'sunny' },
          },
          {
            type: 'tool-result',
            toolCallId: 't2',
            toolName: 'weather',
            output: { type: 'error-text', value: 'no data' },
          },
        ],
      },
    ]);
  });

  it('merges consecutive tool messages (plain and parts alike) into one, and no other messages', () => {
    const parts = (id: string) => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: 'w', output: { type: 'text', value: id } }],
    });
    const out = wire([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      parts('t1'),
      { role: 'tool', toolCallId: 't2', toolName: 'w', content: 't2' },
      parts('t3'),
      { role: 'assistant', content: 'ok' },
      parts('t4'),
    ]);
    expect(out.map((m) => m.role)).toEqual(['user', 'user', 'tool', 'assistant', 'tool']);
    const joined = out[2] as Extract<WireMessage, { role: 'tool' }>;
    expect(joined.content.map((p) => (p as { toolCallId: string }).toolCallId)).toEqual(['t1', 't2', 't3']);
  });

  it('joins tool messages with provider options as the AI SDK does: the earlier one’s go to its last part', () => {
    const result = (id: string, providerOptions?: object) => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: 'w', output: { type: 'text', value: id } }],
      ...(providerOptions ? { providerOptions } : {}),
    });
    const part = (id: string, providerOptions?: object) => ({
      ...result(id).content[0],
      ...(providerOptions ? { providerOptions } : {}),
    });
    expect(
      wire([
        result('t1', { anthropic: { cacheControl: { type: 'ephemeral' } } }),
        result('t2', { openai: { a: 1 } }),
        result('t3'),
      ]),
    ).toEqual([
      {
        role: 'tool',
        content: [
          part('t1', { anthropic: { cacheControl: { type: 'ephemeral' } } }),
          part('t2', { openai: { a: 1 } }),
          part('t3'),
        ],
      },
    ]);
  });

  it("drops approval responses the provider does not execute, keeps a provider-executed tool's", () => {
    const approval = (providerExecuted: boolean) => ({
      type: 'tool-approval-response',
      approvalId: 'a1',
      approved: true,
      ...(providerExecuted ? { providerExecuted } : {}),
    });
    expect(wire([{ role: 'tool', content: [approval(false)] }])).toEqual([]);
    expect(wire([{ role: 'tool', content: [approval(true)] }])).toEqual([
      { role: 'tool', content: [approval(true)] },
    ]);
  });
});

describe('toWireMessages: refusals name the field', () => {
  it.each([
    ['a message that is no object', ['hi'], 'messages[0]', /must be a message/],
    [
      'an unknown role',
      [{ role: 'robot', content: 'x' }],
      'messages[0].role',
      /one of system, user, assistant, tool/,
    ],
    [
      'a system message of parts',
      [{ role: 'system', content: [{ type: 'text', text: 's' }] }],
      'messages[0].content',
      /a system message holds a string/,
    ],
    [
      'a user content that is neither string nor parts',
      [user(3)],
      'messages[0].content',
      /a string or an array/,
    ],
    [
      'a reasoning part from the user',
      [user([{ type: 'reasoning', text: 'x' }])],
      'messages[0].content[0].type',
      /a user message holds text, image and file parts/,
    ],
    [
      'a text that is no string',
      [user([{ type: 'text', text: 3 }])],
      'messages[0].content[0].text',
      /must be a string/,
    ],
    [
      'a file without a media type',
      [user('hi'), user([{ type: 'file', data: PDF_BASE64 }])],
      'messages[1].content[0].mediaType',
      /is missing: give the IANA media type/,
    ],
    ['an image without data', [user([{ type: 'image' }])], 'messages[0].content[0].image', /is missing/],
    [
      'file data that is neither URL nor base64',
      [user([{ type: 'file', data: 'not base64!', mediaType: 'text/plain' }])],
      'messages[0].content[0].data',
      /is neither a URL nor base64/,
    ],
    [
      'a data: URL as inline data',
      [
        user([
          {
            type: 'file',
            data: { type: 'data', data: `data:application/pdf;base64,${PDF_BASE64}` },
            mediaType: 'application/pdf',
          },
        ]),
      ],
      'messages[0].content[0].data.data',
      /a data URL is not inline data/,
    ],
    [
      'a URL that does not parse',
      [user([{ type: 'file', data: 'http://[nope', mediaType: 'application/pdf' }])],
      'messages[0].content[0].data',
      /is not a URL/,
    ],
    [
      'a data: URL without a media type',
      [user([{ type: 'file', data: 'data:;base64,AAAA', mediaType: 'application/pdf' }])],
      'messages[0].content[0].data',
      /a data URL without a media type/,
    ],
    [
      'an image URL with a user name and password',
      [user([{ type: 'image', image: 'https://user:secret@example.com/cat.png' }])],
      'messages[0].content[0].image',
      /a URL with a user name or password/,
    ],
    [
      'a tagged URL with a token as user name',
      [
        user([
          {
            type: 'file',
            data: { type: 'url', url: new URL('https://tok@example.com/a.pdf') },
            mediaType: 'application/pdf',
          },
        ]),
      ],
      'messages[0].content[0].data.url',
      /a URL with a user name or password/,
    ],
    [
      'an empty provider reference',
      [user([{ type: 'file', data: { type: 'reference', reference: {} }, mediaType: 'application/pdf' }])],
      'messages[0].content[0].data.reference',
      /maps provider names to ids/,
    ],
    [
      'a file name that is no string',
      [user([{ type: 'file', data: PDF_BASE64, mediaType: 'application/pdf', filename: 1 }])],
      'messages[0].content[0].filename',
      /must be a string/,
    ],
    [
      'tool calls beside a parts content',
      [{ role: 'assistant', content: [], toolCalls: [] }],
      'messages[0].toolCalls',
      /goes with a string content only/,
    ],
    [
      'plain tool call arguments that are no JSON text',
      [{ role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'w', args: { a: 1 } }] }],
      'messages[0].toolCalls[0].args',
      /must be the JSON text of the arguments/,
    ],
    [
      'an image from the assistant',
      [{ role: 'assistant', content: [{ type: 'image', image: PNG_BASE64 }] }],
      'messages[0].content[0].type',
      /is not an assistant part/,
    ],
    [
      'a reasoning text that is no string',
      [{ role: 'assistant', content: [{ type: 'reasoning' }] }],
      'messages[0].content[0].text',
      /must be a string/,
    ],
    [
      'a reasoning file by reference',
      [
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning-file',
              data: { type: 'reference', reference: { openai: 'f' } },
              mediaType: 'image/png',
            },
          ],
        },
      ],
      'messages[0].content[0].data',
      /reasoning files hold bytes or a URL/,
    ],
    [
      'a custom part without a kind',
      [{ role: 'assistant', content: [{ type: 'custom' }] }],
      'messages[0].content[0].kind',
      /provider\.kind/,
    ],
    [
      'a tool call without an id',
      [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'w', input: {} }] }],
      'messages[0].content[0].toolCallId',
      /must be a string/,
    ],
    [
      'a tool result without output',
      [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'w' }] }],
      'messages[0].content[0].output',
      /the AI SDK's tool result output/,
    ],
    [
      'a tool result output of an unknown type',
      [
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 't1', toolName: 'w', output: { type: 'html', value: '' } },
          ],
        },
      ],
      'messages[0].content[0].output.type',
      /must be one of text, json, execution-denied, error-text, error-json, content/,
    ],
    [
      'a content output that is no array',
      [
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 't1', toolName: 'w', output: { type: 'content', value: 'x' } },
          ],
        },
      ],
      'messages[0].content[0].output.value',
      /an array of text and file parts/,
    ],
    [
      'a file in a content output without a media type',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'w',
              output: {
                type: 'content',
                value: [{ type: 'file', data: { type: 'data', data: PDF_BASE64 } }],
              },
            },
          ],
        },
      ],
      'messages[0].content[0].output.value[0].mediaType',
      /is missing/,
    ],
    [
      'a text part in a tool message',
      [{ role: 'tool', content: [{ type: 'text', text: 'x' }] }],
      'messages[0].content[0].type',
      /a tool message holds tool-result parts/,
    ],
    [
      'a plain tool result without its call id',
      [{ role: 'tool', toolName: 'w', content: 'x' }],
      'messages[0].toolCallId',
      /must name the tool call/,
    ],
    [
      'a plain tool result without a tool name',
      [{ role: 'tool', toolCallId: 't1', content: 'x' }],
      'messages[0].toolName',
      /must be a string/,
    ],
    [
      'a plain isError that is no boolean',
      [{ role: 'tool', toolCallId: 't1', toolName: 'w', content: 'x', isError: 'yes' }],
      'messages[0].isError',
      /must be a boolean/,
    ],
    [
      'provider options that are no object',
      [{ role: 'user', content: 'x', providerOptions: 'fast' }],
      'messages[0].providerOptions',
      /keyed by provider/,
    ],
    [
      "a provider's options that are no object",
      [user([{ type: 'text', text: 'x', providerOptions: { openai: 'fast' } }])],
      'messages[0].content[0].providerOptions.openai',
      /an object of that provider's options/,
    ],
  ])('%s: `%s`', (_name, messages, field, message) => {
    let error: unknown;
    try {
      toWireMessages(messages);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidModelCallInputError);
    expect((error as InvalidModelCallInputError).field).toBe(field);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(`\`${field}\`: `)).toBe(true);
  });

  it('names the field under another root', () => {
    expect(() => toWireMessages([{ role: 'robot', content: '' }], 'turn.messages')).toThrow(
      /^`turn\.messages\[0\]\.role`/,
    );
  });
});

/** A parts content of one empty text: what the AI SDK may turn into no content. */
const isLoneEmptyText = (m: ModelMessage): boolean =>
  Array.isArray(m.content) &&
  m.content.length === 1 &&
  m.content[0]!.type === 'text' &&
  m.content[0]!.text === '';

describe('toWireMessages: properties', () => {
  it('converts a wire message to itself (converting again changes nothing), for the AI SDK’s messages and the plain shape', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, plainArb), (messages) => {
        const once = toWireMessages(messages);
        expect(toWireMessages(once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it('gives JSON-safe messages: a JSON round trip gives them back', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, plainArb), (messages) => {
        const once = toWireMessages(messages);
        expect(JSON.parse(JSON.stringify(once))).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the AI SDK's own conversion (convertToLanguageModelPrompt, no download), in wire form", async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, async (messages) => {
        // Where the AI SDK leaves a message with nothing (a content of one empty text), the conversion keeps that
        // text, so that converting its own result changes nothing (see the lone empty text above).
        fc.pre(!messages.some(isLoneEmptyText));
        const theirs = await convertToLanguageModelPrompt({
          prompt: { instructions: undefined, messages },
          supportedUrls: { '*': [/^/] },
          download: async (planned) => planned.map(() => null),
        });
        expect(toWireMessages(messages)).toEqual(toWire(theirs));
      }),
      { numRuns: 300 },
    );
  });
});

describe('assistantMessageOf', () => {
  const content: WireContent[] = [
    { type: 'reasoning', text: 'think', providerMetadata: { anthropic: { signature: 'sig-1' } } },
    { type: 'text', text: 'first' },
    { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{"city":"Oslo"}' },
    { type: 'text', text: 'second', providerMetadata: { openai: { itemId: 'msg_2' } } },
    {
      type: 'reasoning',
      text: '',
      providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } },
    },
    {
      type: 'tool-call',
      toolCallId: 's1',
      toolName: 'web_search',
      input: '{"query":"x"}',
      providerExecuted: true,
      providerMetadata: { openai: { itemId: 'ws_1' } },
    },
    { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', result: [{ url: 'u' }] },
    { type: 'source', sourceType: 'url', id: 'src1', url: 'https://example.com' },
    { type: 'text', text: '' },
    { type: 'text', text: '', providerMetadata: { openai: { itemId: 'msg_3' } } },
    {
      type: 'reasoning-file',
      data: { type: 'data', data: 'AQID' },
      mediaType: 'image/png',
      providerMetadata: { google: { thoughtSignature: 'ts' } },
    },
  ];
  const output = {
    text: 'firstsecond',
    toolCalls: [{ id: 't1', name: 'weather', args: '{"city":"Oslo"}' }],
    content,
  };

  it('keeps the content in order: reasoning with its provider metadata as provider options, tool-call inputs parsed', () => {
    expect(assistantMessageOf(output)).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 'sig-1' } } },
        { type: 'text', text: 'first' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } },
        { type: 'text', text: 'second', providerOptions: { openai: { itemId: 'msg_2' } } },
        {
          type: 'reasoning',
          text: '',
          providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } },
        },
        {
          type: 'tool-call',
          toolCallId: 's1',
          toolName: 'web_search',
          input: { query: 'x' },
          providerExecuted: true,
          providerOptions: { openai: { itemId: 'ws_1' } },
        },
        {
          type: 'tool-result',
          toolCallId: 's1',
          toolName: 'web_search',
          output: { type: 'json', value: [{ url: 'u' }] },
        },
        // The source is the answer's; an empty text goes back only with its metadata.
        { type: 'text', text: '', providerOptions: { openai: { itemId: 'msg_3' } } },
        {
          type: 'reasoning-file',
          data: { type: 'data', data: 'AQID' },
          mediaType: 'image/png',
          providerOptions: { google: { thoughtSignature: 'ts' } },
        },
      ],
    });
  });

  it('gives a provider error result as error-json, and a tool-call input that is no JSON as its text', () => {
    const message = assistantMessageOf({
      text: '',
      toolCalls: [],
      content: [
        { type: 'tool-call', toolCallId: 't1', toolName: 'echo', input: 'not json' },
        {
          type: 'tool-result',
          toolCallId: 's1',
          toolName: 'web_search',
          result: { error: 'x' },
          isError: true,
        },
      ],
    });
    expect(message.content).toEqual([
      { type: 'tool-call', toolCallId: 't1', toolName: 'echo', input: 'not json' },
      {
        type: 'tool-result',
        toolCallId: 's1',
        toolName: 'web_search',
        output: { type: 'error-json', value: { error: 'x' } },
      },
    ]);
  });

  it('is a wire message: converting it again changes nothing', () => {
    const message = assistantMessageOf(output);
    expect(toWireMessages([message])).toEqual([message]);
  });

  it('without content (an answer of an earlier version): its text, then its tool calls', () => {
    expect(
      assistantMessageOf({ text: 'hm', toolCalls: [{ id: 't1', name: 'calc', args: '{"a":1}' }] }),
    ).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'hm' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'calc', input: { a: 1 } },
      ],
    });
    expect(
      assistantMessageOf({ text: '', toolCalls: [{ id: 't1', name: 'calc', args: '{}' }] }).content,
    ).toEqual([{ type: 'tool-call', toolCallId: 't1', toolName: 'calc', input: {} }]);
  });
});

describe('textOfMessage', () => {
  it('joins the text parts and skips the rest', () => {
    expect(textOfMessage({ role: 'system', content: 's' })).toBe('s');
    expect(
      textOfMessage({
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'reasoning', text: 'r' },
          { type: 'tool-call', toolCallId: 't', toolName: 'w', input: {} },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('ab');
  });
});

describe('toWireMessages: data URLs and file data tags', () => {
  it('takes a percent-encoded data URL as its bytes, in base64 like every inline file', () => {
    const [m] = toWireMessages([
      {
        role: 'user',
        content: [{ type: 'file', data: 'data:text/plain,h%C3%A9llo%20x', mediaType: 'text/plain' }],
      },
    ]);
    expect(m).toEqual({
      role: 'user',
      content: [
        {
          type: 'file',
          mediaType: 'text/plain',
          data: { type: 'data', data: Buffer.from('héllo x').toString('base64') },
        },
      ],
    });
  });

  it('refuses file data with a tag it does not know, naming the field', () => {
    expect(() =>
      toWireMessages([
        { role: 'user', content: [{ type: 'file', data: { type: 'blob', id: 1 }, mediaType: 'image/png' }] },
      ]),
    ).toThrow(/`messages\[0\]\.content\[0\]\.data\.type`/);
  });
});
