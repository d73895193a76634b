import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallFailedDetails, ModelCallResult } from '../../common/call.js';
import { CONTINUE_MODES, continuing } from '../../loopback/index.js';
import type { ContinueMode, RecordedRequest } from '../../loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import type { Benchmark } from '../lib/benchmark.js';
import { BENCH_KEY_ENV } from '../../test/harness/lab.js';
import type { BenchContext } from '../../test/harness/lab.js';
import type { Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtRatio, median, ratio, sum } from '../lib/stats.js';

/** What the model means to answer: words that occur once each, so a bent continuation is found in it. */
export const MEANT =
  'Durable calls keep what they delivered: the workflow holds every character its subscribers read, so a ' +
  'broken stream resumes on another worker or backend. Each continuation asks the model to carry on from the ' +
  'last character, never twice; adversarial models still repeat, restart, ramble or stop early.';

const WORDS = MEANT.match(/\s*\S+\s*/g)?.length ?? 0;

interface CutPlan {
  /** Calls per mode and variant. */
  calls: number;
  /** The provider's pause before each word. */
  chunkDelayMs: number;
  /** The stream's batch interval (short, so that what came before a cut was delivered). */
  batchMs: number;
  /** The waits of the calls' plan (a cut is `ConnectionLost`: a same-backend retry after a wait). */
  waitMs: number;
}

const PLANS: Record<'quick' | 'full', CutPlan> = {
  quick: { calls: 2, chunkDelayMs: 5, batchMs: 20, waitMs: 20 },
  full: { calls: 12, chunkDelayMs: 10, batchMs: 50, waitMs: 50 },
};

/**
 * How a cut call goes on: `stop` (the default), or `continue` on a model that takes a prefill (an Anthropic
 * provider with `prefill: true` on the model) or on one asked by instruction (the OpenAI-compatible `local`).
 */
export const VARIANTS = ['stop', 'instruction', 'prefill'] as const;
export type Variant = (typeof VARIANTS)[number];
const PROVIDER: Record<Variant, 'local' | 'claude'> = {
  stop: 'local',
  instruction: 'local',
  prefill: 'claude',
};

/** One call: what its subscriber read, how it ended, and what the provider sent and counted. */
export interface CutCall {
  mode: ContinueMode | 'uncut';
  variant: Variant;
  /** Words delivered before the cut. */
  cutAfter: number;
  stopReason: string;
  /** The result's text (succeeded calls), else the failure's partial text, else ''. */
  text: string;
  /** Every text delta the subscriber read, joined. */
  read: string;
  /** Requests the provider got, and the forms of the continuations among them. */
  requests: number;
  forms: string[];
  /** Characters the model sent again in its continuations: the end of the delivered text it started with. */
  modelRepeated: number;
  /** Tokens as a provider counts them: every request's input, and the output it actually sent. */
  tokens: number;
  callMs: number;
}

/**
 * The stream-cut benchmark: against an adversarial loopback (a continuation that is exact, repeats a little,
 * repeats a lot, restarts, adds a preamble or answers nothing), many streamed calls whose stream is cut after some
 * words were delivered, each mode with `stream.onCut` 'stop' beside 'continue' (by instruction, and by prefill on
 * a model that takes one) in the same run, and uncut calls of the same answer as the baseline. Per call, one subscriber reads the stream from offset 0; the provider's records
 * give what each request delivered, how it asked (prefill or instruction), what the model repeated and the tokens.
 */
export const streamCut: Benchmark = {
  name: 'stream-cut',
  title: '12. Streams cut mid-answer: stop beside continue, against an adversarial model',
  async run(ctx) {
    const plan = PLANS[ctx.size];
    // The prefill models are named in the providers file: one per call of a `prefill` row, and the baseline's.
    const prefillIds = Array.from(
      { length: plan.calls * (CONTINUE_MODES.length + 1) + 1 },
      (_, i) => `cut-prefill-${randomUUID().slice(0, 8)}-${i}`,
    );
    const worker = await startCutWorker(ctx, prefillIds);
    const run: Runner = { ctx, taskQueue: worker.taskQueue, plan, prefillIds: [...prefillIds] };
    const calls: CutCall[] = [];
    try {
      // One call first, not counted: the worker's first run pays for its start.
      await oneCall(run, 'uncut', 'stop', 0);
      for (const variant of ['stop', 'prefill'] as const) {
        const each = Array.from({ length: plan.calls }, () => oneCall(run, 'uncut', variant, 0));
        calls.push(...(await Promise.all(each)));
      }
      for (const mode of CONTINUE_MODES) {
        for (const variant of VARIANTS) {
          // Cuts spread over the answer: early ones deliver less than the 20 characters an overlap needs.
          const cuts = Array.from({ length: plan.calls }, (_, i) => 1 + ((i * 7) % (WORDS - 2)));
          calls.push(...(await Promise.all(cuts.map((k) => oneCall(run, mode, variant, k)))));
        }
        ctx.lp.reset();
      }
    } finally {
      worker.stop();
      await worker.done;
    }
    ctx.log(`bench: stream-cut: ${calls.length} calls`);
    return streamCutResult(plan, calls);
  },
};

interface Runner {
  ctx: BenchContext;
  taskQueue: string;
  plan: CutPlan;
  /** Prefill model ids not used yet. */
  prefillIds: string[];
}

/** model-retry's worker with the loopback as `local` (OpenAI-compatible) and as `claude` (Anthropic, prefills). */
async function startCutWorker(ctx: BenchContext, prefillIds: string[]) {
  const base = { baseURL: ctx.lp.openaiBaseURL, apiKeyEnv: BENCH_KEY_ENV };
  const providers = createProviderRegistry(
    {
      local: { type: 'openai-compatible', ...base },
      claude: {
        type: 'anthropic',
        ...base,
        baseURL: ctx.lp.anthropicBaseURL,
        models: Object.fromEntries(prefillIds.map((id) => [id, { prefill: true }])),
      },
    },
    { env: ctx.workerEnv },
  );
  const taskQueue = `bench-stream-cut-${randomUUID()}`;
  const worker = await createModelRetryWorker({
    connection: ctx.native,
    namespace: ctx.namespace,
    taskQueue,
    workflowBundle: { codePath: ctx.bundlePath },
    shutdownGraceMs: 2000,
    deps: { providers },
    warn: () => undefined,
  });
  return { taskQueue, done: worker.run(), stop: () => worker.shutdown() };
}

async function oneCall(
  { ctx, taskQueue, plan, prefillIds }: Runner,
  mode: ContinueMode | 'uncut',
  variant: Variant,
  cutAfter: number,
): Promise<CutCall> {
  const provider = PROVIDER[variant];
  const id = provider === 'claude' ? prefillIds.shift() : ctx.model(`cut-${mode}-${variant}`).id;
  if (id === undefined) throw new Error('stream-cut: out of prefill model ids');
  const model = { id, name: `${provider}:${id}` };
  const chunkDelayMs = plan.chunkDelayMs;
  ctx.lp.script(
    model.id,
    mode === 'uncut'
      ? [continuing(MEANT, 'exact', { chunkDelayMs })]
      : [
          // The stream stalls before it breaks, so that every word sent before the cut was delivered.
          continuing(MEANT, mode, { chunkDelayMs, cutAfterChunks: cutAfter, cutPauseMs: 4 * plan.batchMs }),
          continuing(MEANT, mode, { chunkDelayMs }),
        ],
  );
  const t0 = Date.now();
  const input = {
    model: model.name,
    prompt: 'Say it once.',
    stream: { batchMs: plan.batchMs, onCut: variant === 'stop' ? ('stop' as const) : ('continue' as const) },
    retry: { waits: [plan.waitMs, plan.waitMs] },
  };
  const handle = await startModelCall(ctx.client, input, {
    taskQueue,
    workflowId: `bench-cut-${randomUUID()}`,
  });
  const reading = (async () => {
    let read = '';
    for await (const item of subscribeCallStream(ctx.client, handle.workflowId)) {
      if (item.kind === 'delta') read += item.delta.text;
    }
    return read;
  })();
  let stopReason: string;
  let text: string;
  try {
    const result = (await handle.result()) as ModelCallResult;
    stopReason = result.stopReason;
    text = result.output.text;
  } catch (error) {
    const details = failureDetails(error);
    stopReason = details?.stopReason ?? 'failed';
    text = details?.partialText ?? '';
  }
  const callMs = Date.now() - t0;
  const read = await reading;
  await ctx.lp.idle();
  const requests = ctx.lp.requests(model.id);
  return {
    mode,
    variant,
    cutAfter,
    stopReason,
    text,
    read,
    requests: requests.length,
    forms: requests.flatMap((r) => (r.continuation === undefined ? [] : [r.continuation.form])),
    modelRepeated: sum(requests.map(repeatedByModel)),
    tokens: sum(requests.map(tokensOf)),
    callMs,
  };
}

function failureDetails(error: unknown): Partial<ModelCallFailedDetails> | undefined {
  if (!(error instanceof WorkflowFailedError)) return undefined;
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause;
  return cause instanceof ApplicationFailure
    ? (cause.details?.[0] as Partial<ModelCallFailedDetails> | undefined)
    : undefined;
}

/** The words of a request's answer that reached the connection before it was cut (all of them when not cut). */
function sentText(r: RecordedRequest): string {
  const words = (r.answer ?? '').match(/\s*\S+\s*/g) ?? [];
  return words.slice(0, r.deltasSentAt?.length ?? 0).join('');
}

/** The longest end of the delivered text the model's answer started with (what it said again). */
function repeatedByModel(r: RecordedRequest): number {
  const delivered = r.continuation?.delivered ?? '';
  const answer = r.answer ?? '';
  for (let k = Math.min(delivered.length, answer.length); k > 0; k -= 1) {
    if (answer.startsWith(delivered.slice(delivered.length - k))) return k;
  }
  return 0;
}

/** Input tokens as the loopback counts them (the delivered text included), and the output sent (4 characters a token). */
function tokensOf(r: RecordedRequest): number {
  const input = 10 + Math.ceil((r.continuation?.delivered.length ?? 0) / 4);
  return input + Math.ceil(sentText(r).length / 4);
}

/** The figures of one mode and variant. */
export interface CutCell {
  mode: ContinueMode;
  variant: Variant;
  calls: number;
  /** Share of calls whose result's text is the meant text. */
  complete: number;
  succeeded: number;
  /** Characters subscribers read beyond the call's text, summed (model-retry delivered them twice): goal 0. */
  deliveredTwice: number;
  /** Calls whose subscriber's text is not the call's text. */
  readMismatch: number;
  /** Characters the model itself sent again (its continuation started with the end of the delivered text). */
  modelRepeated: number;
  /** Characters of the results beyond the meant text (the model's repeats and preambles left in), summed. */
  extraInResult: number;
  /** Characters of the meant text missing from the results, summed. */
  missing: number;
  medianRequests: number;
  prefills: number;
  instructions: number;
  medianCallMs: number;
  medianTokens: number;
  /** Median call time and tokens over an uncut call's. */
  latencyRatio: number;
  tokensRatio: number;
}

function cellOf(calls: CutCall[], mode: ContinueMode, variant: Variant): CutCell {
  const mine = calls.filter((c) => c.mode === mode && c.variant === variant);
  const baseline = baselineOf(calls);
  const forms = mine.flatMap((c) => c.forms);
  const medianCallMs = median(mine.map((c) => c.callMs));
  const medianTokens = median(mine.map((c) => c.tokens));
  return {
    mode,
    variant,
    calls: mine.length,
    complete: mine.filter((c) => c.text === MEANT).length / Math.max(1, mine.length),
    succeeded: mine.filter((c) => c.stopReason === 'succeeded').length,
    deliveredTwice: sum(mine.map((c) => Math.max(0, c.read.length - c.text.length))),
    readMismatch: mine.filter((c) => c.read !== c.text).length,
    modelRepeated: sum(mine.map((c) => c.modelRepeated)),
    extraInResult: sum(mine.map((c) => Math.max(0, c.text.length - MEANT.length))),
    missing: sum(mine.map((c) => Math.max(0, MEANT.length - c.text.length))),
    medianRequests: median(mine.map((c) => c.requests)),
    prefills: forms.filter((f) => f === 'prefill').length,
    instructions: forms.filter((f) => f === 'instruction').length,
    medianCallMs,
    medianTokens,
    latencyRatio: ratio(medianCallMs, median(baseline.map((c) => c.callMs))),
    tokensRatio: ratio(medianTokens, median(baseline.map((c) => c.tokens))),
  };
}

/**
 * The uncut calls, both providers' together: the loopback answers both alike, and one pooled median is steadier on
 * a busy machine than two small ones.
 */
function baselineOf(calls: CutCall[]): CutCall[] {
  return calls.filter((c) => c.mode === 'uncut');
}

function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export function streamCutResult(plan: CutPlan, calls: CutCall[]) {
  const cells = CONTINUE_MODES.flatMap((mode) => VARIANTS.map((variant) => cellOf(calls, mode, variant)));
  const cell = (mode: ContinueMode, variant: Variant) =>
    cells.find((c) => c.mode === mode && c.variant === variant) as CutCell;
  const across = (mode: ContinueMode, variants: readonly Variant[], show: (c: CutCell) => string) =>
    variants.map((v) => show(cell(mode, v))).join(' / ');
  const continued = ['instruction', 'prefill'] as const;
  const baselines = (['instruction', 'prefill'] as const).map((v) => {
    const b = calls.filter((c) => c.mode === 'uncut' && PROVIDER[c.variant] === PROVIDER[v]);
    return {
      provider: PROVIDER[v],
      calls: b.length,
      medianCallMs: median(b.map((c) => c.callMs)),
      medianTokens: median(b.map((c) => c.tokens)),
      complete: b.filter((c) => c.text === MEANT).length / Math.max(1, b.length),
    };
  });
  const tables: Table[] = [
    {
      title: `Stop beside continue, per adversarial mode (${plan.calls} calls each): stop / continue by instruction / continue by prefill`,
      columns: [
        'model continues',
        'complete',
        'delivered twice by model-retry (chars)',
        'model repeated (chars), instruction / prefill',
        'left in results beyond the meant text (chars), instruction / prefill',
        'missing from results (chars), instruction / prefill',
        'latency ×uncut',
        'tokens ×uncut',
      ],
      rows: CONTINUE_MODES.map((mode) => [
        mode,
        across(mode, VARIANTS, (c) => pct(c.complete)),
        across(mode, VARIANTS, (c) => String(c.deliveredTwice)),
        across(mode, continued, (c) => String(c.modelRepeated)),
        across(mode, continued, (c) => String(c.extraInResult)),
        across(mode, continued, (c) => String(c.missing)),
        across(mode, VARIANTS, (c) => fmtRatio(c.latencyRatio)),
        across(mode, VARIANTS, (c) => fmtRatio(c.tokensRatio)),
      ]),
      notes: [
        `Each call streams the same ${MEANT.length}-character answer word by word (${WORDS} words, ` +
          `${plan.chunkDelayMs} ms apart, batches of ${plan.batchMs} ms) and is cut after 1 to ${WORDS - 2} ` +
          `words, the stream stalling ${4 * plan.batchMs} ms first so that they were delivered; the next attempt ` +
          `(after a ${plan.waitMs} ms wait) meets the mode's continuation. Stop and instruction: the ` +
          'OpenAI-compatible `local`; prefill: an Anthropic provider whose models have `prefill: true`.',
        "Complete: the result's text is the meant text. Delivered twice: what the subscriber read (from offset 0) " +
          "beyond the call's text (a stopped call's: its partial text); goal 0. Model repeated: characters the " +
          "model's continuations started with that it had already delivered; what is left in the results is the " +
          'next column (by instruction, an overlap of 20 characters or more is trimmed and a shorter one, a ' +
          'preamble or a restart after a short cut is published as the model sent it; with a prefill, everything ' +
          'the model sent is).',
        'Latency and tokens: medians over an uncut call of the same answer (both providers pooled). Tokens as a ' +
          "provider bills them: each request's input (the delivered text too, for a continuation) and the output " +
          'it actually sent.',
      ],
    },
    {
      title: 'Every cell',
      columns: [
        'mode',
        'variant',
        'calls',
        'succeeded',
        'complete',
        'read ≠ text',
        'requests (median)',
        'prefill / instruction requests',
        'call (median)',
        'tokens (median)',
      ],
      rows: cells.map((c) => [
        c.mode,
        c.variant,
        String(c.calls),
        String(c.succeeded),
        pct(c.complete),
        String(c.readMismatch),
        fmtNum(c.medianRequests),
        `${c.prefills} / ${c.instructions}`,
        fmtMs(c.medianCallMs),
        fmtNum(c.medianTokens),
      ]),
      notes: baselines.map(
        (b) =>
          `Uncut on ${b.provider}: ${b.calls} calls, median ${fmtMs(b.medianCallMs)}, ` +
          `${fmtNum(b.medianTokens)} tokens, ${pct(b.complete)} complete.`,
      ),
    },
  ];
  return {
    name: 'stream-cut',
    title: streamCut.title,
    params: {
      ...plan,
      meantChars: MEANT.length,
      words: WORDS,
      modes: [...CONTINUE_MODES],
      variants: [...VARIANTS],
    },
    // Each call without its texts (their lengths, and whether the subscriber read the call's text, say enough).
    figures: { cells, baselines, calls: calls.map(compact) },
    tables,
    notes: [
      `Delivered twice by model-retry, all cells: ${sum(cells.map((c) => c.deliveredTwice))} characters ` +
        `(${sum(cells.map((c) => c.readMismatch))} calls whose subscriber read other than the call's text).`,
      ...CONTINUE_MODES.map(
        (mode) =>
          `${mode}: complete ${across(mode, VARIANTS, (c) => pct(c.complete))} (stop / instruction / prefill), ` +
          `latency ${across(mode, VARIANTS, (c) => fmtRatio(c.latencyRatio))} and tokens ` +
          `${across(mode, VARIANTS, (c) => fmtRatio(c.tokensRatio))} of an uncut call.`,
      ),
    ],
  };
}

function compact({ text, read, ...call }: CutCall) {
  return {
    ...call,
    textChars: text.length,
    readChars: read.length,
    readIsText: read === text,
    complete: text === MEANT,
  };
}
