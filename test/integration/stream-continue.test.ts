import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps, Env } from '../../activities/index.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { continuing, fail } from '../../loopback/index.js';
import type { ContinueMode } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { StreamedText, subscribeCallStream } from '../../client/call-stream.js';
import { charCount } from '../../common/stream.js';
import type { ModelCallInput } from '../../common/call.js';
import { finishCall, TEST_SECRETS } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';
import type { TestWorker } from '../harness/temporal.js';

/** What the model means to answer, streamed word by word. */
const TEXT =
  'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun beside the old red barn.';
/** The words of `TEXT` as the loopback streams them (each with its following spaces). */
const WORDS = TEXT.match(/\S+\s*/g) ?? [];
/** A stream cut after this many words, stalled first so that every one of them reached the stream. */
const CUT = 6;
const DELIVERED = WORDS.slice(0, CUT).join('');

/** A first answer cut after `CUT` words, and a continuation in `mode`. */
const cutThenContinue = (mode: ContinueMode = 'exact') => [
  continuing(TEXT, 'exact', { cutAfterChunks: CUT, cutPauseMs: 400 }),
  continuing(TEXT, mode),
];

/**
 * Streams that break, continued: on every provider family's wire format on loopback, a call with
 * `stream.onCut: 'continue'` whose stream is cut after part of its text was delivered ends succeeded with one
 * whole text, each character delivered once; the records say what each attempt delivered and continued.
 */
describe('a cut stream continued on the next attempt', () => {
  const { fx } = useFixture({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const env: Env = { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey };
    const deps: ActivityDeps = {
      env,
      providers: createProviderRegistry(
        {
          chat: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          resp: { type: 'openai-responses', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          gem: { type: 'google', baseURL: fx.lp.googleBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          claude: { type: 'anthropic', baseURL: fx.lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' },
          // The same Anthropic models, each said to take a prefill.
          pre: {
            type: 'anthropic',
            baseURL: fx.lp.anthropicBaseURL,
            apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY',
            models: Object.fromEntries(
              Array.from({ length: 20 }, (_, i) => [`pre-m${i + 1}`, { prefill: true }]),
            ),
          },
        },
        { env },
      ),
    };
    worker = await fx.temporal.startWorker({ deps });
  });

  const counts = new Map<string, number>();
  /** A model of `family` no other test uses (`pre` models are numbered for the providers file above). */
  const model = (family: string) => {
    const n = (counts.get(family) ?? 0) + 1;
    counts.set(family, n);
    return { id: `${family}-m${n}`, name: `${family}:${family}-m${n}` };
  };

  /** Runs a continued streamed call to its end, reading its stream as a subscriber shows it. */
  async function streamedCall(input: Omit<ModelCallInput, 'stream'>): Promise<CallRun & { read: string }> {
    const handle = await startModelCall(
      fx.temporal.client,
      { ...input, stream: { batchMs: 20, onCut: 'continue' } },
      { taskQueue: worker.taskQueue },
    );
    const shown = new StreamedText();
    const offsets: number[] = [];
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.temporal.client, handle.workflowId, {
        pollCooldownMs: 20,
      })) {
        if (item.kind === 'delta' && item.offset !== undefined) offsets.push(item.offset);
        shown.take(item);
      }
    })();
    const run = await finishCall(fx, handle);
    await reading;
    // Each item of the stream once.
    expect(new Set(offsets).size).toBe(offsets.length);
    return { ...run, read: shown.text };
  }

  const FAMILIES = [
    ['chat', 'instruction'],
    ['resp', 'instruction'],
    ['gem', 'instruction'],
    ['claude', 'instruction'],
    ['pre', 'prefill'],
  ] as const;

  it.each(FAMILIES)(
    '%s: a stream cut after part of its text ends succeeded with the whole text, asked by %s',
    async (family, form) => {
      const m = model(family);
      fx.lp.script(m.id, cutThenContinue());
      const run = await streamedCall({
        model: m.name,
        prompt: 'Tell me about the fox.',
        retry: { waits: [10] },
      });
      expect(run.result?.output.text).toBe(TEXT);
      expect(run.read).toBe(TEXT);
      expect(run.records).toMatchObject([
        {
          outcome: 'failed',
          failure: { class: 'ConnectionLost', action: 'retry-same' },
          deliveredChars: charCount(DELIVERED),
        },
        {
          outcome: 'succeeded',
          continues: 'c1.1',
          continuation: { form },
          deliveredChars: charCount(TEXT) - charCount(DELIVERED),
        },
      ]);
      const [first, second] = fx.lp.requests(m.id);
      expect(first?.continuation).toBeUndefined();
      // A prefill's text goes without its trailing whitespace; an instruction's whole.
      expect(second?.continuation).toEqual({
        delivered: form === 'prefill' ? DELIVERED.trimEnd() : DELIVERED,
        form,
      });
      // The answer's content holds the whole text in one text part.
      expect(run.result?.output.content?.filter((p) => p.type === 'text')).toMatchObject([{ text: TEXT }]);
    },
  );

  it('continues on the next backend of the chain, of another family', async () => {
    const [a, b] = [model('chat'), model('gem')];
    fx.lp.script(a.id, [continuing(TEXT, 'exact', { cutAfterChunks: CUT, cutPauseMs: 400 })]);
    fx.lp.script(b.id, [continuing(TEXT)]);
    const run = await streamedCall({
      model: [a.name, b.name],
      prompt: 'Tell me about the fox.',
      retry: { waits: [10], actions: { ConnectionLost: 'advance' } },
    });
    expect(run.result?.output.text).toBe(TEXT);
    expect(run.read).toBe(TEXT);
    expect(run.records).toMatchObject([
      { backend: 0, failure: { class: 'ConnectionLost', action: 'advance' } },
      { backend: 1, outcome: 'succeeded', continues: 'c1.1' },
    ]);
  });

  it('continues a continuation cut again, from every character delivered so far', async () => {
    const m = model('claude');
    fx.lp.script(m.id, [
      continuing(TEXT, 'exact', { cutAfterChunks: 3, cutPauseMs: 400 }),
      continuing(TEXT, 'exact', { cutAfterChunks: 4, cutPauseMs: 400 }),
      continuing(TEXT),
    ]);
    const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(run.result?.output.text).toBe(TEXT);
    expect(run.read).toBe(TEXT);
    expect(run.records.map((r) => r.continues)).toEqual([undefined, 'c1.1', 'c1.2']);
    expect(fx.lp.requests(m.id)[2]?.continuation?.delivered).toBe(WORDS.slice(0, 7).join(''));
  });

  it.each([
    // A repeat of 20 characters or more is left out; a shorter one and a preamble are published as sent. A restart
    // after fewer than 200 delivered characters repeats all of them: the rule leaves it out like any repeat.
    ['repeat-lot', TEXT, true],
    ['repeat-little', undefined, false],
    ['restart', TEXT, true],
    ['preamble', undefined, false],
  ] as const)(
    'an adversarial continuation (%s): what was delivered is never delivered twice by model-retry',
    async (mode, whole, trimmed) => {
      const m = model('chat');
      fx.lp.script(m.id, cutThenContinue(mode));
      const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10] } });
      const answered = fx.lp.requests(m.id)[1]?.answer ?? '';
      const text = run.result?.output.text ?? '';
      expect(run.read).toBe(text);
      expect(text.startsWith(DELIVERED)).toBe(true);
      if (whole !== undefined) expect(text).toBe(whole);
      const left = run.records[1]?.continuation?.trimmed ?? 0;
      expect(left > 0).toBe(trimmed);
      expect(text).toBe(DELIVERED + answered.slice(left));
    },
  );

  it('a restart after more than 200 delivered characters is published as the model sent it', async () => {
    const long = Array.from({ length: 80 }, (_, i) => `word${i} `).join('');
    const words = long.match(/\S+\s*/g) ?? [];
    const m = model('chat');
    fx.lp.script(m.id, [
      continuing(long, 'exact', { cutAfterChunks: 40, cutPauseMs: 400 }),
      continuing(long, 'restart'),
    ]);
    const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10] } });
    const delivered = words.slice(0, 40).join('');
    expect(delivered.length).toBeGreaterThan(200);
    expect(run.result?.output.text).toBe(delivered + long);
    expect(run.read).toBe(delivered + long);
    expect(run.records[1]?.continuation?.trimmed).toBeUndefined();
  });

  it('a model that adds nothing to the delivered text ends the call with that text', async () => {
    const m = model('chat');
    fx.lp.script(m.id, cutThenContinue('nothing'));
    const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.result?.output.text).toBe(DELIVERED);
    expect(run.read).toBe(DELIVERED);
  });

  it('a refused prefill is asked again at once with an instruction, each request its own attempt', async () => {
    const m = model('pre');
    fx.lp.script(m.id, [
      continuing(TEXT, 'exact', { cutAfterChunks: CUT, cutPauseMs: 400 }),
      fail(400, { message: 'This model does not support assistant message prefill.' }),
      continuing(TEXT),
    ]);
    const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(run.result?.output.text).toBe(TEXT);
    expect(run.records).toMatchObject([
      { failure: { class: 'ConnectionLost' } },
      {
        failure: { class: 'BadRequest', action: 'retry-same' },
        continues: 'c1.1',
        continuation: { form: 'prefill' },
      },
      { outcome: 'succeeded', continues: 'c1.1', continuation: { form: 'instruction' } },
    ]);
    expect(fx.lp.requests(m.id).map((r) => r.continuation?.form)).toEqual([
      undefined,
      'prefill',
      'instruction',
    ]);
  });

  it('a call that stops after a cut returns every delivered character as its partial text', async () => {
    const m = model('chat');
    fx.lp.script(m.id, [
      continuing(TEXT, 'exact', { cutAfterChunks: CUT, cutPauseMs: 400 }),
      fail(500, { repeat: true }),
    ]);
    const run = await streamedCall({ model: m.name, prompt: 'hi', retry: { waits: [10, 10] } });
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(run.details?.partialText).toBe(DELIVERED);
    expect(run.read).toBe(DELIVERED);
    expect(run.records.map((r) => r.continues)).toEqual([undefined, 'c1.1', 'c1.1']);
  });
});
