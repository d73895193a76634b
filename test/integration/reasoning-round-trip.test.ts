import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps, Env } from '../../activities/index.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderConfig } from '../../activities/providers/config.js';
import type { AgentTurnInput } from '../../common/turn.js';
import { ok } from '../../loopback/index.js';
import type { OkStep, ReasoningSpec } from '../../loopback/index.js';
import { runTurn } from '../harness/agent-turn.js';
import { useFixture } from '../harness/fixture.js';
import { TEST_SECRETS } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * Reasoning round-trips through an agent turn on the dev server: step 1 answers reasoning (Anthropic's signed
 * thinking block, an OpenAI Responses reasoning item with encrypted content, a Gemini thought with its signature)
 * and a tool call; the turn runs the tool and appends the assistant message made from the answer
 * (`assistantMessageOf`); step 2's request, as the loopback provider received it, carries the same reasoning
 * with the same signature, in that family's wire format.
 *
 * Each family is served twice: by a provider named as the AI SDK files its metadata (`anthropic`, `openai`,
 * `google`) and by one named otherwise (`claude`, `resp`, `gem`), as a providers file may name it.
 */

type Family = 'anthropic' | 'responses' | 'gemini';

/** Provider names per family: the AI SDK's own key first, then a providers-file name of one's own. */
const NAMES: Record<Family, readonly [string, string]> = {
  anthropic: ['anthropic', 'claude'],
  responses: ['openai', 'resp'],
  gemini: ['google', 'gem'],
};

const THOUGHT = 'I should compute 6 * 7 with the calculator.';

type Body = Record<string, unknown>;
type Part = Record<string, unknown>;

describe('reasoning round-trips through a multi-step agent turn, per provider family', () => {
  const { fx } = useFixture({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const env: Env = { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey };
    const lp = fx.lp;
    const config: Record<string, ProviderConfig> = {};
    for (const name of NAMES.anthropic)
      config[name] = { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' };
    for (const name of NAMES.responses)
      config[name] = { type: 'openai-responses', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' };
    for (const name of NAMES.gemini)
      config[name] = { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'LOOPBACK_KEY' };
    const deps: ActivityDeps = { env, providers: createProviderRegistry(config, { env }) };
    worker = await fx.temporal.startWorker({ deps });
  });

  let n = 0;
  /** A model no other test uses, named as the AI SDK providers would treat a reasoning model. */
  const model = (provider: string, family: Family) => {
    n += 1;
    const base = { anthropic: 'claude-sonnet-4-5-rt', responses: 'gpt-5-rt', gemini: 'gemini-3-pro-rt' }[
      family
    ];
    const id = `${base}-${n}`;
    return { id, name: `${provider}:${id}` };
  };

  /** Runs a two-step turn: reasoning and a calculator call, then the final answer. Returns step 2's request body. */
  async function twoSteps(
    provider: string,
    family: Family,
    reasoning: ReasoningSpec | ReasoningSpec[],
    extra: Partial<AgentTurnInput> = {},
    callSignature?: string,
  ): Promise<Body> {
    const m = model(provider, family);
    const first: OkStep = {
      kind: 'ok',
      reasoning,
      toolCalls: [
        {
          name: 'calculator',
          arguments: { expression: '6 * 7' },
          ...(callSignature === undefined ? {} : { signature: callSignature }),
        },
      ],
    };
    fx.lp.script(m.id, [first, ok('It is 42.')]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'What is 6 times 7?',
      tools: ['calculator'],
      ...extra,
    });
    expect(run.failure, run.failure?.message).toBeUndefined();
    expect(run.result?.text).toBe('It is 42.');
    // The turn's own conversation keeps the reasoning with its metadata.
    const assistant = run.result?.messages.find((msg) => msg.role === 'assistant');
    expect(assistant?.role === 'assistant' && assistant.content.map((p) => p.type)).toEqual(
      expect.arrayContaining(['reasoning', 'tool-call']),
    );
    const requests = fx.lp.requests(m.id);
    expect(requests).toHaveLength(2);
    return requests[1]?.body as Body;
  }

  /** The assistant turn of an Anthropic request. */
  const anthropicAssistant = (body: Body): Part[] =>
    ((body.messages as Body[]).find((msg) => msg.role === 'assistant')?.content as Part[] | undefined) ?? [];

  it.each(NAMES.anthropic)(
    'anthropic (provider %s): a signed thinking block goes back with its signature',
    async (provider) => {
      const body = await twoSteps(provider, 'anthropic', { text: THOUGHT, signature: 'sig-anthropic-1' });
      const content = anthropicAssistant(body);
      expect(content[0]).toEqual({ type: 'thinking', thinking: THOUGHT, signature: 'sig-anthropic-1' });
      expect(content[1]).toMatchObject({
        type: 'tool_use',
        name: 'calculator',
        input: { expression: '6 * 7' },
      });
    },
  );

  it.each(NAMES.anthropic)(
    'anthropic (provider %s): a redacted thinking block goes back with its data',
    async (provider) => {
      const body = await twoSteps(provider, 'anthropic', [
        { text: THOUGHT, signature: 'sig-anthropic-2' },
        { redactedData: 'opaque-redacted-data' },
      ]);
      const content = anthropicAssistant(body);
      expect(content.slice(0, 2)).toEqual([
        { type: 'thinking', thinking: THOUGHT, signature: 'sig-anthropic-2' },
        { type: 'redacted_thinking', data: 'opaque-redacted-data' },
      ]);
    },
  );

  it.each(NAMES.responses)(
    'responses (provider %s, store: false): the reasoning item goes back with its id and encrypted content',
    async (provider) => {
      const body = await twoSteps(
        provider,
        'responses',
        { text: THOUGHT, signature: 'enc-responses-1', id: 'rs_round_trip_1' },
        { providerOptions: { openai: { store: false } } },
      );
      const input = body.input as Part[];
      expect(input.find((item) => item.type === 'reasoning')).toEqual({
        type: 'reasoning',
        id: 'rs_round_trip_1',
        encrypted_content: 'enc-responses-1',
        summary: [{ type: 'summary_text', text: THOUGHT }],
      });
      expect(input.find((item) => item.type === 'function_call')).toMatchObject({ name: 'calculator' });
    },
  );

  it.each(NAMES.responses)(
    'responses (provider %s, stored): the reasoning item goes back as a reference to its id',
    async (provider) => {
      const body = await twoSteps(provider, 'responses', {
        text: THOUGHT,
        signature: 'enc-responses-2',
        id: 'rs_round_trip_2',
      });
      const input = body.input as Part[];
      expect(input).toContainEqual({ type: 'item_reference', id: 'rs_round_trip_2' });
    },
  );

  it.each(NAMES.gemini)(
    'gemini (provider %s): the thought and the signed function call go back with their signatures',
    async (provider) => {
      const body = await twoSteps(
        provider,
        'gemini',
        { text: THOUGHT, signature: 'sig-gemini-thought' },
        {},
        'sig-gemini-call',
      );
      const modelTurn = (body.contents as Body[]).find((c) => c.role === 'model');
      const parts = (modelTurn?.parts as Part[] | undefined) ?? [];
      expect(parts[0]).toEqual({ text: THOUGHT, thought: true, thoughtSignature: 'sig-gemini-thought' });
      expect(parts.find((p) => 'functionCall' in p)).toMatchObject({
        functionCall: { name: 'calculator', args: { expression: '6 * 7' } },
        thoughtSignature: 'sig-gemini-call',
      });
    },
  );

  // Streamed answers: the attempt collects its content from the stream (activities/attempt/stream-answer.ts).
  it('anthropic streamed: a signed thinking block goes back with its signature', async () => {
    const body = await twoSteps(
      'anthropic',
      'anthropic',
      { text: THOUGHT, signature: 'sig-streamed' },
      {
        stream: { batchMs: 20 },
      },
    );
    expect(anthropicAssistant(body)[0]).toEqual({
      type: 'thinking',
      thinking: THOUGHT,
      signature: 'sig-streamed',
    });
  });

  it('responses streamed (store: false): the reasoning item goes back with its encrypted content', async () => {
    const body = await twoSteps(
      'openai',
      'responses',
      { text: THOUGHT, signature: 'enc-streamed', id: 'rs_streamed' },
      { stream: { batchMs: 20 }, providerOptions: { openai: { store: false } } },
    );
    expect((body.input as Part[]).find((item) => item.type === 'reasoning')).toEqual({
      type: 'reasoning',
      id: 'rs_streamed',
      encrypted_content: 'enc-streamed',
      summary: [{ type: 'summary_text', text: THOUGHT }],
    });
  });

  it('gemini streamed: the thought goes back with its signature', async () => {
    const body = await twoSteps(
      'google',
      'gemini',
      { text: THOUGHT, signature: 'sig-streamed-g' },
      {
        stream: { batchMs: 20 },
      },
    );
    const modelTurn = (body.contents as Body[]).find((c) => c.role === 'model');
    expect((modelTurn?.parts as Part[] | undefined)?.[0]).toEqual({
      text: THOUGHT,
      thought: true,
      thoughtSignature: 'sig-streamed-g',
    });
  });
});
