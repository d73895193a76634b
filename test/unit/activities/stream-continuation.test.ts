import type { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTINUE_INSTRUCTION } from '../../../activities/attempt/continuation.js';
import { createModelRequest } from '../../../activities/attempt/model-request.js';
import type { DeltaPublisher } from '../../../activities/attempt/delta-publisher.js';
import { decodeRequest } from '../../../activities/attempt/prompt.js';
import { StreamGate } from '../../../activities/attempt/stream-gate.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import type { ModelRequestInput, ModelRequestResult } from '../../../common/attempt.js';
import type { StreamDelta } from '../../../common/stream.js';
import { fail, ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import {
  attemptFailure,
  builtinEnv,
  builtinRegistry,
  input,
  loopbackRegistry,
  quietEnvironment,
} from './helpers.js';

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

/** A workflow stream client that keeps every delta flushed to it, in order: what subscribers would read. */
function readableStream(): { open: () => WorkflowStreamClient; read: StreamDelta[] } {
  const read: StreamDelta[] = [];
  const queued: StreamDelta[] = [];
  const client = {
    topic: () => ({ publish: (delta: StreamDelta) => void queued.push(delta) }),
    flush: () => {
      read.push(...queued.splice(0));
      return Promise.resolve();
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
  return { open: () => client as unknown as WorkflowStreamClient, read };
}

/** Runs one attempt with a stream client that can be read. */
async function run(registry: ProviderRegistry, attempt: ModelRequestInput) {
  const stream = readableStream();
  const modelRequest = createModelRequest({ providers: () => registry, streamClient: stream.open });
  const done = quietEnvironment().run(modelRequest, attempt) as Promise<ModelRequestResult>;
  return { done, read: stream.read };
}

const textOf = (deltas: readonly StreamDelta[]) => deltas.map((d) => d.text).join('');

/** A registry whose Anthropic model `m` takes a prefill (`prefill: true` in the providers file). */
function prefillRegistry(): ProviderRegistry {
  return createProviderRegistry(
    { claude: { type: 'anthropic', baseURL: lp.anthropicBaseURL, models: { m: { prefill: true } } } },
    { env: builtinEnv(lp) },
  );
}

/** The second attempt of a call whose first delivered `text` before it was cut. */
function continuing(model: string, text: string, extra: Partial<ModelRequestInput> = {}): ModelRequestInput {
  return input(model, {
    attempt: 2,
    modelCallId: 'c1.2',
    stream: { batchMs: 60_000, onCut: 'continue' },
    continuation: { text, continues: 'c1.1' },
    ...extra,
  });
}

type Message = { role: string; content: unknown };
const messagesOf = (i = 0) => (lp.requests('m')[i]?.body as { messages: Message[] }).messages;

/** The texts of an Anthropic message's content blocks (or an OpenAI message's string content). */
const texts = (m: Message | undefined): string =>
  typeof m?.content === 'string'
    ? m.content
    : ((m?.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('');

describe('the instruction form, as each wire format received it', () => {
  const delivered = 'The first half of the answer, ';
  it.each([
    ['openai-compatible', 'local:m', () => loopbackRegistry(lp)],
    ['openai (chat completions)', 'openai:m', () => builtinRegistry(lp)],
    ['anthropic (no prefill set)', 'anthropic:m', () => builtinRegistry(lp)],
  ] as const)(
    '%s: the prompt, the delivered text as the assistant, then the instruction',
    async (_n, model, registry) => {
      lp.script('m', [ok('and the second half.')]);
      const { done, read } = await run(registry(), continuing(model, delivered));
      const result = await done;
      const messages = messagesOf();
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(texts(messages[0])).toBe('hi');
      expect(texts(messages[1])).toBe(delivered);
      expect(texts(messages[2])).toBe(CONTINUE_INSTRUCTION);
      expect(result.continuation).toEqual({ form: 'instruction' });
      expect(result.text).toBe('and the second half.');
      expect(textOf(read)).toBe(result.text);
    },
  );
});

describe('the prefill form (Anthropic, prefill: true)', () => {
  it('ends the request with the delivered text as the assistant, whitespace moved out; the space is not sent twice', async () => {
    lp.script('m', [ok(undefined, { chunks: [' wor', 'ld.'] })]);
    const { done, read } = await run(prefillRegistry(), continuing('claude:m', 'Hello '));
    const result = await done;
    const messages = messagesOf();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(texts(messages.at(-1))).toBe('Hello');
    expect(result.text).toBe('world.');
    expect(textOf(read)).toBe('world.');
    expect(result.continuation).toEqual({ form: 'prefill', trimmed: 1 });
  });

  it('asks with an instruction when the request asks for extended thinking', async () => {
    lp.script('m', [ok(' world.')]);
    const thinking = continuing('claude:m', 'Hello ');
    thinking.request.providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } };
    const { done } = await run(prefillRegistry(), thinking);
    expect((await done).continuation).toEqual({ form: 'instruction' });
    expect(messagesOf().map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a prefill refused with a 400 is asked again at once with an instruction, under the same request id', async () => {
    lp.script('m', [
      fail(400, { message: 'This model does not support assistant message prefill.' }),
      ok('world.'),
    ]);
    const { done, read } = await run(prefillRegistry(), continuing('claude:m', 'Hello '));
    const result = await done;
    const [first, second] = lp.requests('m');
    expect(lp.requests('m')).toHaveLength(2);
    expect(first?.headers['x-request-id']).toBe('wf-test/c1.2');
    expect(second?.headers['x-request-id']).toBe('wf-test/c1.2');
    expect(messagesOf(0).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messagesOf(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(texts(messagesOf(1)[1])).toBe('Hello ');
    expect(result.continuation).toEqual({ form: 'instruction', prefillRefused: true });
    expect(textOf(read)).toBe('world.');
  });

  it('a second 400 fails the attempt BadRequest, saying the prefill was refused', async () => {
    lp.script('m', [fail(400), fail(400)]);
    const { done } = await run(prefillRegistry(), continuing('claude:m', 'Hello '));
    const { details } = await attemptFailure(done);
    expect(details).toMatchObject({
      class: 'BadRequest',
      continuation: { form: 'instruction', prefillRefused: true },
    });
    expect(lp.requests('m')).toHaveLength(2);
  });
});

describe("an instructed continuation's head", () => {
  const delivered = 'Rivers carve valleys over thousands of years, and the water that shapes them ';

  it.each(['openai:m', 'anthropic:m'])(
    '%s: leaves out a repeat of the delivered end (at least 20 characters), in the stream and the result',
    async (model) => {
      const repeat = 'and the water that shapes them ';
      lp.script('m', [
        ok(undefined, { chunks: ['and the water ', 'that shapes them ', 'comes from rain.'] }),
      ]);
      const { done, read } = await run(builtinRegistry(lp), continuing(model, delivered));
      const result = await done;
      expect(textOf(read)).toBe('comes from rain.');
      expect(result.text).toBe('comes from rain.');
      expect(result.content?.filter((p) => p.type === 'text')).toEqual([
        expect.objectContaining({ text: 'comes from rain.' }),
      ]);
      expect(result.continuation).toEqual({ form: 'instruction', trimmed: repeat.length });
      expect(read.at(-1)?.part?.type).toBe('finish');
    },
  );

  it('publishes a preamble as the model sent it', async () => {
    const sent = 'Sure! Continuing: comes from rain.';
    lp.script('m', [ok(sent)]);
    const { done, read } = await run(builtinRegistry(lp), continuing('anthropic:m', delivered));
    expect((await done).continuation).toEqual({ form: 'instruction' });
    expect(textOf(read)).toBe(sent);
  });

  it('an answer that adds no text but finishes normally is a success', async () => {
    lp.script('m', [ok('')]);
    const { done, read } = await run(builtinRegistry(lp), continuing('anthropic:m', delivered));
    const result = await done;
    expect(result).toMatchObject({ text: '', finishReason: 'stop', continuation: { form: 'instruction' } });
    expect(textOf(read)).toBe('');
  });

  it('without a continuation, an empty answer is still ParseFailed', async () => {
    lp.script('m', [ok('')]);
    const { done } = await run(
      builtinRegistry(lp),
      continuing('anthropic:m', '', { continuation: undefined }),
    );
    const { details } = await attemptFailure(done);
    expect(details.class).toBe('ParseFailed');
    expect(details.continuation).toBeUndefined();
  });

  it('a continuation cut again says how it asked on its failure', async () => {
    lp.script('m', [ok('comes from rain and melting snow.', { cutAfterChunks: 2 })]);
    const { done } = await run(builtinRegistry(lp), continuing('anthropic:m', delivered));
    const { details } = await attemptFailure(done);
    expect(details).toMatchObject({ class: 'ConnectionLost', continuation: { form: 'instruction' } });
  });
});

/** A publisher that keeps every part it was given, in order, at once (no batching). */
function keepingPublisher(): DeltaPublisher & { parts: StreamDelta[] } {
  const parts: StreamDelta[] = [];
  return {
    parts,
    add: (text, part) =>
      void parts.push(part === undefined ? { modelCallId: 'x', text } : { modelCallId: 'x', text, part }),
    finish: () => Promise.resolve(),
    abandon: () => Promise.resolve(),
    get sent() {
      return parts.length;
    },
  };
}

describe("with onCut 'continue', a tool call's input is published only once the tool call is complete", () => {
  const step = ok('Let me look. ', {
    toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'rivers' } }],
  });

  /** Streams `step` on the loopback's Anthropic format through a gate, as the attempt does. */
  async function streamed(holdToolInput: boolean, cutAfterChunks?: number) {
    lp.script('m', [cutAfterChunks === undefined ? step : { ...step, cutAfterChunks }]);
    const resolved = builtinRegistry(lp).resolve('anthropic:m');
    const publisher = keepingPublisher();
    const answer = streamAnswer(
      resolved.model,
      decodeRequest(input('anthropic:m').request),
      publisher,
      new StreamGate({ holdToolInput }),
    );
    return { answer, parts: publisher.parts };
  }
  const types = (parts: StreamDelta[]) => parts.map((p) => p.part?.type ?? 'text');

  it('a cut inside the tool call delivered nothing of it (the text before it went out)', async () => {
    // Three text deltas, then the tool's input delta, then the connection drops before the block ends.
    const { answer, parts } = await streamed(true, 4);
    await expect(answer).rejects.toThrow();
    expect(types(parts)).toEqual(['text', 'text', 'text']);
  });

  it("without onCut 'continue', the same cut had published the tool call's start", async () => {
    const { answer, parts } = await streamed(false, 4);
    await expect(answer).rejects.toThrow();
    expect(types(parts)).toContain('tool-input-start');
  });

  it('a complete tool call publishes its input, in order, then the call', async () => {
    const { answer, parts } = await streamed(true);
    const result = await answer;
    expect(types(parts)).toEqual([
      'text',
      'text',
      'text',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
    ]);
    expect(result.content.some((p) => p.type === 'tool-call')).toBe(true);
  });
});
