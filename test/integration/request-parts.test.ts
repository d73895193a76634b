import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps, Env } from '../../activities/index.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { InvalidModelCallInputError } from '../../common/input-error.js';
import { ok, toolCall } from '../../loopback/index.js';
import type { OkStep, RecordedRequest } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { runCall, TEST_SECRETS } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * "What a call carries", on the dev server, per provider family's wire format: the parts of a request (image and
 * file bytes, provider options on a call and on a message part, tool choice, request headers) reach the loopback
 * provider in that family's own shape, credentials are refused before anything starts, and the answer comes back
 * whole (content in order with reasoning metadata, the provider's model id, provider metadata, warnings).
 */

type Family = 'local' | 'claude' | 'gem' | 'resp';
const FAMILIES: readonly Family[] = ['local', 'claude', 'gem', 'resp'];

/** Model ids the AI SDK providers treat as they would the real ones (Responses: `gpt-5*` is a reasoning model). */
const BASE: Record<Family, string> = {
  local: 'chat-parts',
  claude: 'claude-parts',
  gem: 'gemini-parts',
  resp: 'gpt-5-parts',
};

// A PNG signature and IHDR start, and a PDF header: bytes the providers pass on as they are.
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const PNG64 = Buffer.from(PNG).toString('base64');
const PDF64 = Buffer.from(PDF).toString('base64');

const LOOKUP = {
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
};

const THOUGHT = 'The user wants a word looked up.';

type Body = Record<string, unknown>;
const bodyOf = (r: RecordedRequest | undefined): Body => (r?.body ?? {}) as Body;

describe('what a call carries, per provider family, on the dev server', () => {
  const { fx } = useFixture({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const env: Env = { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey };
    const deps: ActivityDeps = {
      env,
      providers: createProviderRegistry(
        {
          local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          claude: { type: 'anthropic', baseURL: fx.lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' },
          gem: { type: 'google', baseURL: fx.lp.googleBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          resp: { type: 'openai-responses', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        },
        { env },
      ),
    };
    worker = await fx.temporal.startWorker({ deps });
  });

  let n = 0;
  /** A model of `family` no other test uses. */
  const model = (family: Family) => {
    n += 1;
    const id = `${BASE[family]}-${n}`;
    return { id, name: `${family}:${id}` };
  };

  /** Runs one call on `family` answered by `step`; returns the run and the one request the provider got. */
  async function one(family: Family, input: Omit<ModelCallInput, 'model'>, step: OkStep = ok('fine')) {
    const m = model(family);
    fx.lp.script(m.id, [step]);
    const run = await runCall(fx, worker, { model: m.name, ...input });
    const requests = fx.lp.requests(m.id);
    expect(requests, 'requests to the provider').toHaveLength(1);
    return { m, run, request: requests[0] as RecordedRequest, body: bodyOf(requests[0]) };
  }

  const IMAGE_AND_PDF: ModelCallInput['messages'] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What do these show?' },
        { type: 'image', image: PNG, mediaType: 'image/png' },
        { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'doc.pdf' },
      ],
    },
  ];

  /** The user content each family sends for IMAGE_AND_PDF. */
  const USER_CONTENT: Record<Family, (body: Body) => unknown> = {
    local: (b) => (b.messages as Body[])[0]?.content,
    claude: (b) => (b.messages as Body[])[0]?.content,
    gem: (b) => (b.contents as Body[])[0]?.parts,
    resp: (b) => (b.input as Body[])[0]?.content,
  };
  const EXPECTED_CONTENT: Record<Family, unknown> = {
    local: [
      { type: 'text', text: 'What do these show?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG64}` } },
      { type: 'file', file: { filename: 'doc.pdf', file_data: `data:application/pdf;base64,${PDF64}` } },
    ],
    claude: [
      { type: 'text', text: 'What do these show?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG64 } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF64 } },
    ],
    gem: [
      { text: 'What do these show?' },
      { inlineData: { mimeType: 'image/png', data: PNG64 } },
      { inlineData: { mimeType: 'application/pdf', data: PDF64 } },
    ],
    resp: [
      { type: 'input_text', text: 'What do these show?' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG64}` },
      { type: 'input_file', filename: 'doc.pdf', file_data: `data:application/pdf;base64,${PDF64}` },
    ],
  };

  it.each(FAMILIES)(
    '%s: an image part and a PDF file part (bytes) reach the provider in its own shape',
    async (family) => {
      const { run, body } = await one(family, { messages: IMAGE_AND_PDF });
      expect(run.result?.output.text).toBe('fine');
      expect(USER_CONTENT[family](body)).toMatchObject(EXPECTED_CONTENT[family] as object);
    },
  );

  it('claude: cacheControl on a message part becomes cache_control on that block; thinking on the call reaches the body', async () => {
    const { body } = await one('claude', {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: 'A long document to cache.',
              providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
            },
            { type: 'text', text: 'And a question.' },
          ],
        },
      ],
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    });
    expect((body.messages as Body[])[0]?.content).toEqual([
      { type: 'text', text: 'A long document to cache.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'And a question.' },
    ]);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('resp: openai provider options (user, reasoning effort) reach the body', async () => {
    const { body } = await one('resp', {
      prompt: 'hi',
      providerOptions: { openai: { user: 'u1', reasoningEffort: 'low', store: false } },
    });
    expect(body).toMatchObject({ user: 'u1', reasoning: { effort: 'low' }, store: false });
    expect(body.include).toEqual(['reasoning.encrypted_content']);
  });

  it("local: the provider's own options (keyed by the provider's name) and the AI SDK's reasoning setting reach the body", async () => {
    const { body } = await one('local', {
      prompt: 'hi',
      settings: { reasoning: 'high', topK: 5, seed: 7 },
      providerOptions: { local: { user: 'u1' } },
    });
    expect(body).toMatchObject({ user: 'u1', reasoning_effort: 'high', seed: 7 });
  });

  it('gem: google provider options (thinkingConfig) reach the generation config', async () => {
    const { body } = await one('gem', {
      prompt: 'hi',
      providerOptions: { google: { thinkingConfig: { thinkingBudget: 256, includeThoughts: true } } },
    });
    expect((body.generationConfig as Body | undefined)?.thinkingConfig).toEqual({
      thinkingBudget: 256,
      includeThoughts: true,
    });
  });

  /** What each family sends for `toolChoice` required and `{ type: 'tool', toolName: 'lookup' }`. */
  const TOOL_CHOICE: Record<Family, { read: (b: Body) => unknown; required: unknown; tool: unknown }> = {
    local: {
      read: (b) => b.tool_choice,
      required: 'required',
      tool: { type: 'function', function: { name: 'lookup' } },
    },
    claude: { read: (b) => b.tool_choice, required: { type: 'any' }, tool: { type: 'tool', name: 'lookup' } },
    gem: {
      read: (b) => (b.toolConfig as Body | undefined)?.functionCallingConfig,
      required: { mode: 'ANY' },
      tool: { mode: 'ANY', allowedFunctionNames: ['lookup'] },
    },
    resp: { read: (b) => b.tool_choice, required: 'required', tool: { type: 'function', name: 'lookup' } },
  };

  it.each(FAMILIES)(
    '%s: toolChoice required and a named tool reach the body in its own shape',
    async (family) => {
      const shape = TOOL_CHOICE[family];
      const asked = toolCall('lookup', { word: 'durable' });
      const required = await one(
        family,
        { prompt: 'Look up "durable".', tools: [LOOKUP], toolChoice: { type: 'required' } },
        asked,
      );
      expect(shape.read(required.body)).toEqual(shape.required);
      expect(required.run.result?.output.toolCalls).toMatchObject([
        { name: 'lookup', args: '{"word":"durable"}' },
      ]);
      const named = await one(
        family,
        { prompt: 'Look up "durable".', tools: [LOOKUP], toolChoice: { type: 'tool', toolName: 'lookup' } },
        asked,
      );
      expect(shape.read(named.body)).toEqual(shape.tool);
    },
  );

  it.each(FAMILIES)("%s: the call's headers reach the provider beside the X-Request-Id", async (family) => {
    const { run, request } = await one(family, { prompt: 'hi', headers: { 'x-trace': 'abc' } });
    expect(request.headers['x-trace']).toBe('abc');
    const attempt = run.records[0];
    expect(request.headers['x-request-id']).toBe(`${run.workflowId}/${attempt?.modelCallId}`);
  });

  it.each([
    [{ headers: { authorization: 'Bearer nothing-real' } }, 'headers.authorization'],
    [{ headers: { 'X-Api-Key': 'abc' } }, 'headers.X-Api-Key'],
    [{ headers: { 'x-forward': 'Bearer abcdefgh' } }, 'headers.x-forward'],
    [{ providerOptions: { anthropic: { apiKey: 'abc' } } }, 'providerOptions.anthropic.apiKey'],
  ] as const)(
    'a credential in the request (%o) is refused before anything starts, naming %s',
    async (extra, field) => {
      const m = model('claude');
      const started = startModelCall(
        fx.temporal.client,
        { model: m.name, prompt: 'hi', ...(extra as Partial<ModelCallInput>) },
        { taskQueue: worker.taskQueue, workflowId: `refused-${m.id}` },
      );
      const error = await started.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidModelCallInputError);
      expect((error as Error).message).toContain(field);
      expect(fx.lp.requestCount(m.id)).toBe(0);
      // Nothing started: no workflow of that id exists.
      await expect(fx.temporal.client.workflow.getHandle(`refused-${m.id}`).describe()).rejects.toThrow();
    },
  );

  it('a provider-defined tool a backend of the chain cannot run is refused before any attempt, naming it', async () => {
    const claude = model('claude');
    const local = model('local');
    const run = await runCall(fx, worker, {
      model: [claude.name, local.name],
      prompt: 'search the web',
      tools: [
        { type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: { max_uses: 1 } },
      ],
    });
    expect(run.failure?.type).toBe('InvalidModelCallInput');
    expect(run.failure?.message).toContain('`tools[0]`');
    expect(run.failure?.message).toContain(`backend 1 (${local.name}) cannot run`);
    expect(run.records).toEqual([]);
    expect(fx.lp.requestCount(claude.id) + fx.lp.requestCount(local.id)).toBe(0);
  });

  it("claude: another provider's signed reasoning in the conversation stays out of its request; its own goes in", async () => {
    const messages: ModelCallInput['messages'] = [
      { role: 'user', content: 'Look up a word.' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'mine', providerOptions: { anthropic: { signature: 'sig-a' } } },
          { type: 'reasoning', text: 'theirs', providerOptions: { openai: { itemId: 'rs_1' } } },
          { type: 'text', text: 'It means a thing.' },
        ],
      },
      { role: 'user', content: 'Thanks, and another?' },
    ];
    const { body } = await one('claude', { messages });
    const assistant = (body.messages as Body[])[1]?.content as Body[];
    expect(assistant.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(assistant[0]).toMatchObject({ thinking: 'mine', signature: 'sig-a' });
  });

  it('a file URL with a user name and password in it is refused before anything starts', async () => {
    const m = model('claude');
    const messages: ModelCallInput['messages'] = [
      { role: 'user', content: [{ type: 'image', image: 'https://user:pass@example.com/a.png' }] },
    ];
    await expect(
      startModelCall(fx.temporal.client, { model: m.name, messages }, { taskQueue: worker.taskQueue }),
    ).rejects.toThrow(/messages\[0\]\.content\[0\]\.image/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  /** An answer with reasoning, then text, as each family carries it back in `output.content`. */
  const ANSWER: Record<Family, { reasoning: Body; metadata: (b: Body) => void }> = {
    local: {
      reasoning: { type: 'reasoning', text: THOUGHT },
      metadata: () => undefined,
    },
    claude: {
      reasoning: {
        type: 'reasoning',
        text: THOUGHT,
        providerMetadata: { anthropic: { signature: 'sig-claude' } },
      },
      metadata: (pm) => expect(pm).toHaveProperty('anthropic.usage'),
    },
    gem: {
      reasoning: {
        type: 'reasoning',
        text: THOUGHT,
        providerMetadata: { google: { thoughtSignature: 'sig-gem' } },
      },
      metadata: (pm) => expect(pm).toHaveProperty('google'),
    },
    resp: {
      reasoning: {
        type: 'reasoning',
        text: THOUGHT,
        providerMetadata: { openai: { itemId: 'rs_parts', reasoningEncryptedContent: 'sig-resp' } },
      },
      metadata: (pm) => expect(pm).toHaveProperty('openai.responseId'),
    },
  };
  const SIGNATURE: Record<Family, string | undefined> = {
    local: undefined,
    claude: 'sig-claude',
    gem: 'sig-gem',
    resp: 'sig-resp',
  };

  it.each(FAMILIES)(
    '%s: the answer comes back whole: reasoning with its metadata, text, the response, provider metadata, usage',
    async (family) => {
      const signature = SIGNATURE[family];
      const step = ok('The answer.', {
        reasoning: { text: THOUGHT, id: 'rs_parts', ...(signature === undefined ? {} : { signature }) },
        usage: { inputTokens: 12, outputTokens: 9, reasoningTokens: 4 },
      });
      const { m, run } = await one(family, { prompt: 'hi' }, step);
      const output = run.result?.output;
      expect(output?.text).toBe('The answer.');
      expect(output?.content?.map((c) => c.type)).toEqual(['reasoning', 'text']);
      expect(output?.content?.[0]).toEqual(ANSWER[family].reasoning);
      expect(output?.content?.[1]).toMatchObject({ type: 'text', text: 'The answer.' });
      expect(output?.finishReason).toBe('stop');
      // @ai-sdk/google reads no model id from Gemini's answer (its `modelVersion`): only the response id comes back.
      if (family !== 'gem') expect(output?.response?.modelId).toBe(m.id);
      expect(output?.response?.id).toMatch(/loopback/);
      if (family !== 'local') ANSWER[family].metadata(output?.providerMetadata ?? {});
      expect(run.result?.usage).toMatchObject({ inputTokens: 12, outputTokens: 9 });
      if (family !== 'claude') expect(run.result?.usage?.reasoningTokens).toBe(4);
    },
  );

  it("claude: the provider's warnings come back in output.warnings (an unknown model without maxOutputTokens)", async () => {
    const { run } = await one('claude', { prompt: 'hi' });
    expect(run.result?.output.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ feature: 'maxOutputTokens' })]),
    );
  });

  it('claude: a redacted thinking block comes back with its data', async () => {
    const step = ok('The answer.', {
      reasoning: [{ text: THOUGHT, signature: 's1' }, { redactedData: 'opaque' }],
    });
    const { run } = await one('claude', { prompt: 'hi' }, step);
    expect(run.result?.output.content?.slice(0, 2)).toEqual([
      { type: 'reasoning', text: THOUGHT, providerMetadata: { anthropic: { signature: 's1' } } },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
    ]);
  });

  it.each(FAMILIES)(
    '%s streamed: the image, options and headers reach the provider as in a request not streamed',
    async (family) => {
      const { request, body, run } = await one(family, {
        messages: IMAGE_AND_PDF,
        headers: { 'x-trace': 'abc' },
        stream: { batchMs: 20 },
      });
      expect(request.stream).toBe(true);
      expect(USER_CONTENT[family](body)).toMatchObject(EXPECTED_CONTENT[family] as object);
      expect(request.headers['x-trace']).toBe('abc');
      expect(run.result?.output.text).toBe('fine');
    },
  );

  it.each(FAMILIES)(
    '%s streamed: the answer comes back whole (reasoning with its metadata, then text)',
    async (family) => {
      const signature = SIGNATURE[family];
      const step = ok('The answer.', {
        reasoning: { text: THOUGHT, id: 'rs_parts', ...(signature === undefined ? {} : { signature }) },
      });
      const { m, run } = await one(family, { prompt: 'hi', stream: { batchMs: 20 } }, step);
      const output = run.result?.output;
      expect(output?.text).toBe('The answer.');
      // A stream may carry the provider's own custom parts too (Anthropic's `anthropic.message_start`), as the AI
      // SDK's streamText keeps them; the content proper is the same as for a request not streamed.
      const content = output?.content?.filter((c) => c.type !== 'custom');
      expect(content?.map((c) => c.type)).toEqual(['reasoning', 'text']);
      expect(content?.[0]).toEqual(ANSWER[family].reasoning);
      if (family !== 'gem') expect(output?.response?.modelId).toBe(m.id);
    },
  );
});
