import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTINUE_MODES,
  CONTINUE_PREAMBLE,
  continuing,
  InvalidScriptError,
  parseStep,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { ContinueMode, LoopbackProvider } from '../../../loopback/index.js';
import { deliveredEnd } from '../../../loopback/continuation.js';
import { parseSse, post, readUntilBroken } from './helpers.js';

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

interface Message {
  role: 'user' | 'assistant';
  text: string;
}

/** One provider family: how a request with these messages looks, and how to read the answer's text. */
interface Family {
  name: string;
  send(model: string, messages: Message[], stream: boolean): Promise<Response>;
  text(body: unknown): string;
  streamText(raw: string): string;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sseData = (raw: string): Json[] =>
  parseSse(raw.replaceAll('\r\n', '\n'))
    .map((e) => e.data)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as Json);

const FAMILIES: Family[] = [
  {
    name: 'OpenAI chat completions',
    send: (model, messages, stream) =>
      post(lp, '/v1/chat/completions', {
        model,
        stream,
        messages: messages.map((m) => ({ role: m.role, content: m.text })),
      }),
    text: (body) => (body as Json).choices[0].message.content as string,
    streamText: (raw) =>
      sseData(raw)
        .map((c) => (c.choices?.[0]?.delta?.content as string | undefined) ?? '')
        .join(''),
  },
  {
    name: 'OpenAI Responses',
    send: (model, messages, stream) =>
      post(lp, '/v1/responses', {
        model,
        stream,
        input: messages.map((m) =>
          m.role === 'assistant'
            ? { role: 'assistant', content: [{ type: 'output_text', text: m.text }] }
            : { role: 'user', content: m.text },
        ),
      }),
    text: (body) =>
      ((body as Json).output as Json[])
        .filter((i) => i.type === 'message')
        .flatMap((i) => (i.content as Json[]).map((p) => p.text as string))
        .join(''),
    streamText: (raw) =>
      sseData(raw)
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta as string)
        .join(''),
  },
  {
    name: 'Anthropic messages',
    send: (model, messages, stream) =>
      post(lp, '/v1/messages', {
        model,
        max_tokens: 100,
        stream,
        messages: messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] })),
      }),
    text: (body) =>
      ((body as Json).content as Json[])
        .filter((b) => b.type === 'text')
        .map((b) => b.text as string)
        .join(''),
    streamText: (raw) =>
      sseData(raw)
        .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')
        .map((e) => e.delta.text as string)
        .join(''),
  },
  {
    name: 'Gemini',
    send: (model, messages, stream) =>
      post(lp, `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, {
        contents: messages.map((m) => ({
          role: m.role === 'assistant' ? 'model' : 'user',
          parts: [
            ...(m.role === 'assistant' ? [{ text: 'a thought', thought: true }] : []),
            { text: m.text },
          ],
        })),
      }),
    text: (body) =>
      (((body as Json).candidates[0].content?.parts ?? []) as Json[]).map((p) => p.text as string).join(''),
    streamText: (raw) =>
      sseData(raw)
        .flatMap((e) => (e.candidates?.[0]?.content?.parts ?? []) as Json[])
        .map((p) => p.text as string)
        .join(''),
  },
];

const MEANT = 'The quick brown fox jumps over the lazy dog and runs far away into the quiet green hills.';
const ASK: Message = { role: 'user', text: 'Tell me about the fox.' };
const INSTRUCTION: Message = { role: 'user', text: 'Continue exactly from the last character.' };

describe.each(FAMILIES)('a step that continues a partial answer: $name', (family) => {
  it('answers whole when nothing was delivered (cut as scripted), then the rest after a prefill and after an instruction', async () => {
    lp.script('m', [
      continuing(MEANT, 'exact', { cutAfterChunks: 3 }),
      continuing(MEANT),
      continuing(MEANT),
      continuing(MEANT),
    ]);
    const first = family.streamText((await readUntilBroken(await family.send('m', [ASK], true))).text);
    expect(first).toBe('The quick brown ');

    // A prefill carries the delivered text without its trailing whitespace: the rest starts with it.
    const prefill = [ASK, { role: 'assistant' as const, text: first.trimEnd() }];
    expect(family.streamText(await (await family.send('m', prefill, true)).text())).toBe(
      MEANT.slice('The quick brown'.length),
    );
    const instructed = [ASK, { role: 'assistant' as const, text: first }, INSTRUCTION];
    expect(family.streamText(await (await family.send('m', instructed, true)).text())).toBe(
      MEANT.slice(first.length),
    );
    expect(family.text(await (await family.send('m', instructed, false)).json())).toBe(
      MEANT.slice(first.length),
    );

    expect(lp.requests('m').map((r) => r.continuation)).toEqual([
      undefined,
      { delivered: 'The quick brown', form: 'prefill' },
      { delivered: 'The quick brown ', form: 'instruction' },
      { delivered: 'The quick brown ', form: 'instruction' },
    ]);
    expect(lp.requests('m').map((r) => r.outcome)).toEqual(['cut', 'completed', 'completed', 'completed']);
    expect(lp.requests('m').map((r) => r.answer)).toEqual([
      MEANT,
      MEANT.slice('The quick brown'.length),
      MEANT.slice(first.length),
      MEANT.slice(first.length),
    ]);
  });

  const delivered = 'The quick brown fox jumps over the lazy dog ';
  const rest = MEANT.slice(delivered.length);
  const expected: Record<ContinueMode, string> = {
    exact: rest,
    'repeat-little': delivered.slice(-8) + rest,
    'repeat-lot': delivered.slice(-40) + rest,
    restart: MEANT,
    preamble: CONTINUE_PREAMBLE + rest,
    nothing: '',
  };
  it.each(CONTINUE_MODES)('mode %s, streamed and not', async (mode) => {
    lp.script('m', [continuing(MEANT, mode), continuing(MEANT, mode)]);
    const request = [ASK, { role: 'assistant' as const, text: delivered }, INSTRUCTION];
    const streamed = await family.send('m', request, true);
    expect(family.streamText(await streamed.text())).toBe(expected[mode]);
    expect(family.text(await (await family.send('m', request, false)).json())).toBe(expected[mode]);
    expect(lp.requests('m').map((r) => r.outcome)).toEqual(['completed', 'completed']);
  });
});

describe('continuation details', () => {
  it('repeats as many characters as told, and counts the delivered text in the input tokens', async () => {
    lp.script('m', [continuing(MEANT, 'repeat-little', { repeatChars: 3 }), continuing(MEANT, 'repeat-lot')]);
    const send = (): Promise<Response> =>
      FAMILIES[0]!.send('m', [ASK, { role: 'assistant', text: 'The quick ' }], false);
    const little = (await (await send()).json()) as Json;
    expect(little.choices[0].message.content).toBe(`ck ${MEANT.slice('The quick '.length)}`);
    expect(little.usage.prompt_tokens).toBe(10 + Math.ceil('The quick'.length / 4));
    // Repeating a lot repeats at most what was delivered.
    expect(FAMILIES[0]!.text(await (await send()).json())).toBe(
      `The quick${MEANT.slice('The quick'.length)}`,
    );
  });

  it('finds where a bent delivered text ends in the meant text (after a preamble, after a restart)', () => {
    expect(deliveredEnd(MEANT, 'The quick ')).toBe(10);
    expect(deliveredEnd(MEANT, `The quick ${CONTINUE_PREAMBLE}brown fox`)).toBe('The quick brown fox'.length);
    expect(deliveredEnd(MEANT, 'The quick The quick brown')).toBe('The quick brown'.length);
    expect(deliveredEnd(MEANT, '###')).toBe(0);
  });

  it('an empty assistant message delivered nothing: the meant text whole', async () => {
    lp.script('m', [continuing(MEANT)]);
    const res = await FAMILIES[0]!.send('m', [ASK, { role: 'assistant', text: '' }, INSTRUCTION], false);
    expect(FAMILIES[0]!.text(await res.json())).toBe(MEANT);
    expect(lp.requests('m')[0]?.continuation).toBeUndefined();
  });

  it('validates continues like the other fields', () => {
    const bad = (continues: unknown, extra: Record<string, unknown> = {}): string => {
      try {
        parseStep({ kind: 'ok', continues, ...extra });
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidScriptError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(bad({ text: 'x', mode: 'repeat-lot', repeatChars: 25 })).toBe('accepted');
    expect(bad('x')).toMatch(/^step\.continues must be \{ text, mode\?, repeatChars\? \}/);
    expect(bad({ text: 'x', mode: 'echo' })).toMatch(/^step\.continues\.mode must be one of exact, /);
    expect(bad({ text: 'x', mode: 'repeat-little', repeatChars: 20 })).toMatch(
      /^step\.continues\.repeatChars must be an integer 1-19/,
    );
    expect(bad({ text: 'x', mode: 'repeat-lot', repeatChars: 5 })).toMatch(/must be an integer >= 20/);
    expect(bad({ text: 'x', repeatChars: 5 })).toMatch(
      /applies only to the modes repeat-little and repeat-lot/,
    );
    expect(bad({ text: 'x', extra: 1 })).toMatch(/extra is not one of its fields/);
    expect(bad({ text: 'x' }, { text: 'y' })).toBe(
      'step.text cannot be given with continues (continues.text is the answer)',
    );
  });
});
