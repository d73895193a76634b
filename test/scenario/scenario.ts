import type { ModelCallInput } from '../../common/call.js';
/**
 * A scenario of the randomized suite: plain data that fast-check generates and shrinks, and that the runner
 * turns into loopback scripts, a call's input, and the moments at which it cancels the call or kills its worker.
 * Every time is in milliseconds and small, so that a case costs a second or two on the real dev server.
 */

/** A retry-after header in one of the forms providers send. */
export type RetryAfter =
  | { form: 'ms'; ms: number }
  | { form: 'seconds'; seconds: number }
  /** An HTTP date `offsetSeconds` from when the answer is sent (negative: already past). */
  | { form: 'date'; offsetSeconds: number };

/** What the provider does with one request. */
export type Fault =
  | { kind: 'ok'; delayMs: number }
  | {
      kind: 'status';
      status: number;
      delayMs: number;
      retryAfter?: RetryAfter;
      /** A 429 that says `insufficient_quota`. */
      quota?: boolean;
      shouldRetry?: boolean;
    }
  /** The connection is destroyed before any response byte. */
  | { kind: 'drop'; delayMs: number }
  /** Headers and part of the body, then the connection is destroyed. */
  | { kind: 'cut' }
  /** A streamed answer whose connection is destroyed after `chunks` deltas (a plain request: `cut`). */
  | { kind: 'stream-cut'; chunks: number }
  /**
   * A streamed answer that stalls after `chunks` deltas, longer than any generated attempt timeout, and then breaks
   * (a plain request: `cut`): the attempt times out after part of its text was delivered.
   */
  | { kind: 'stall'; chunks: number }
  /** A streamed answer that ends cleanly with no finish chunk and no `[DONE]` (a plain request: `cut`). */
  | { kind: 'clean-cut' }
  /** A 200 with no text and finish reason `length` (a model that spent its tokens thinking). */
  | { kind: 'empty-length' }
  | { kind: 'malformed' }
  /** Never answers: only the attempt's timeout ends it. */
  | { kind: 'hang' };

/** One backend of the chain. */
export type Backend =
  /** A loopback model: `faults` in order, and the last one repeats for every further request. */
  | { kind: 'loopback'; faults: Fault[] }
  /** A provider whose port nothing listens on: every attempt `ConnectFailed`, no request. */
  | { kind: 'dead' }
  /** A provider the worker does not know: `Misconfigured`, no request. */
  | { kind: 'unknown' };

/**
 * How a continuation answers on a scenario's loopback (the loopback's continue modes): the rest of the text, a
 * little or a lot of the delivered text again first, the whole text again, a preamble first, or nothing.
 */
export type ContinueMode = 'exact' | 'repeat-little' | 'repeat-lot' | 'restart' | 'preamble' | 'nothing';

/** The generated part of a retry plan (`false`: no plan, one attempt). */
export type PlanShape =
  | false
  | {
      waits?: number[];
      backoff?: { initialMs: number; factor: number; maxMs: number; jitterMs: number };
      maxAttempts: number;
      deadline?: { inMs: number; reserveMs: number; minAttemptMs: number };
      attemptTimeoutMs: number;
      retryAfterMaxMs?: number;
      retriesPerBackend?: number;
      actions?: Record<string, string>;
    };

/** When the host acts on the call. */
export type Moment =
  /** Once the call's `request`-th provider request has arrived, after `plusMs`. */
  | { at: 'request'; request: number; plusMs: number }
  /** `ms` after the call was started. */
  | { at: 'time'; ms: number }
  /**
   * Once the call's `check`-th local activity (the worker config ask, a cooling check, the search attributes
   * check) has begun, while it still runs: only with `slowChecks`, which keeps each one running that long.
   */
  | { at: 'check'; check: number };

/**
 * A neighbour: another call started beside the main one, on the same task queue (so the same workers: their
 * `maxInFlight` slots and fleet-health copies) and on the same backends (the same loopback scripts, so the same
 * breakers), with a plan, stream and cancellation of its own.
 */
export interface Neighbour {
  /** Its chain: indexes into the main call's chain, in its own order. */
  chain: number[];
  plan: PlanShape;
  stream: boolean;
  /** A streamed neighbour that continues cut streams (`stream.onCut: 'continue'`). */
  onCut?: 'continue';
  /** Started this long after the main call. */
  startMs: number;
  /** Counted in its own provider requests, or from its own start. */
  cancel?: Moment;
  budget?: { maxTotalTokens: number };
}

export interface Scenario {
  chain: Backend[];
  plan: PlanShape;
  stream: boolean;
  /**
   * A streamed call that continues cut streams (`stream.onCut: 'continue'`): a cut keeps its own class and the next
   * attempt continues the delivered text.
   */
  onCut?: 'continue';
  /**
   * How the backends' scripts answer a continuation (a request that carries delivered text), when the main call or
   * a neighbour continues cut streams. @default 'exact'
   */
  continueMode?: ContinueMode;
  /**
   * The scripts' continuing text is made of characters of two UTF-16 units each (`CONTINUE_WIDE`): delivered text
   * and its overlap are counted in characters, not units. Not with the `repeat-*` modes (the loopback repeats units).
   */
  wide?: true;
  /**
   * The loopback backends are models that take a prefill: a continuation asks with the delivered text as the start
   * of the answer (its trailing whitespace moved out), and a 400 to it is answered once with an instruction.
   */
  prefill?: true;
  cancel?: Moment;
  /**
   * Shut the worker down `plusMs` after the `request`-th request arrived (or while the call's `check`-th local
   * activity runs, with `slowChecks`), and start another on the task queue.
   */
  kill?: { request: number; plusMs?: number } | { check: number };
  /**
   * Every local activity of the call takes this many ms longer on an in-process worker (see `slow-checks.ts`),
   * so that a cancel or a kill can land while one runs.
   */
  slowChecks?: number;
  /** The call's token budget (failed attempts count; see the contract's "Budgets"). */
  budget?: { maxTotalTokens: number };
  /** Fleet health on for the call's backends (a breaker that trips within a case: see `fleet.ts`). */
  health?: boolean;
  /** Per-worker limits on the call's loopback backends (their provider's `limits`). */
  limits?: { maxInFlight?: 1; requestsPerSecond?: 5 };
  /** A `model-retry worker` process polls the call's task queue beside the in-process worker. */
  secondWorker?: boolean;
  /** Calls running beside the main one (the main call's `kill` shuts their worker down too). */
  neighbours?: Neighbour[];
  /**
   * The `stream` the backends' scripts were built for, when it is not this call's own: a neighbour's requests
   * meet the main call's scripts (a streamed step answers a plain request with the whole answer).
   */
  scriptsStream?: boolean;
  /**
   * The call sends a multi-part request (a system message, a user message with text and an image, provider options
   * on the message) instead of the plain prompt.
   */
  parts?: boolean;
  /**
   * The case's calls (the main one and its neighbours) are a tenant's, under a token envelope of `maxTotalTokens`
   * (see `tenants.ts`); `name` is set by the runner (a fresh tenant per case).
   */
  tenant?: { maxTotalTokens: number; name?: string };
}

/** A 1x1 PNG: the image of a multi-part scenario request. */
const PIXEL = new Uint8Array([
  137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21,
  196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 240, 31, 0, 5, 0, 1, 255, 137, 153, 61,
  29, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
]);

/** What a scenario's call sends: the plain prompt, or a multi-part request. */
export function requestOf(
  s: Pick<Scenario, 'parts'>,
): Pick<ModelCallInput, 'prompt' | 'system' | 'messages'> {
  if (s.parts !== true) return { prompt: 'scenario' };
  return {
    system: 'You answer scenarios.',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'scenario' },
          { type: 'image', image: PIXEL, mediaType: 'image/png' },
        ],
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
    ],
  };
}

/** A short, readable line for a scenario (what a failing case prints besides its JSON). */
export function describeScenario(s: Scenario): string {
  const chain = s.chain
    .map((b) => (b.kind === 'loopback' ? `[${b.faults.map(describeFault).join(' ')}]` : b.kind))
    .join(' , ');
  const plan = s.plan === false ? 'no plan' : JSON.stringify(s.plan);
  const extra = [
    s.stream ? 'stream' : '',
    s.onCut
      ? `onCut continue (${s.continueMode ?? 'exact'}${s.wide ? ', wide text' : ''}${s.prefill ? ', prefill' : ''})`
      : '',
    s.cancel ? `cancel@${JSON.stringify(s.cancel)}` : '',
    s.kill ? `kill@${killMoment(s.kill)}` : '',
    s.slowChecks ? `slow checks ${s.slowChecks} ms` : '',
    s.budget ? `budget:${s.budget.maxTotalTokens} tokens` : '',
    s.health ? 'health' : '',
    s.limits ? `limits:${JSON.stringify(s.limits)}` : '',
    s.secondWorker ? 'second worker process' : '',
    s.parts ? 'multi-part request' : '',
    s.tenant ? `tenant envelope:${s.tenant.maxTotalTokens} tokens` : '',
  ].filter(Boolean);
  const main = `${chain} | ${plan}${extra.length ? ` | ${extra.join(' ')}` : ''}`;
  return [main, ...(s.neighbours ?? []).map((n, i) => `  neighbour ${i + 1}: ${describeNeighbour(n)}`)].join(
    '\n',
  );
}

function killMoment(k: NonNullable<Scenario['kill']>): string {
  if (!('request' in k)) return `check ${k.check}`;
  return `request ${k.request}${k.plusMs ? ` +${k.plusMs} ms` : ''}`;
}

function describeNeighbour(n: Neighbour): string {
  const extra = [
    `+${n.startMs} ms`,
    n.stream ? 'stream' : '',
    n.onCut ? 'onCut continue' : '',
    n.cancel ? `cancel@${JSON.stringify(n.cancel)}` : '',
    n.budget ? `budget:${n.budget.maxTotalTokens} tokens` : '',
  ].filter(Boolean);
  const plan = n.plan === false ? 'no plan' : JSON.stringify(n.plan);
  return `backends [${n.chain.join(', ')}] | ${plan} | ${extra.join(' ')}`;
}

function describeFault(f: Fault): string {
  switch (f.kind) {
    case 'status': {
      const ra = f.retryAfter ? `+ra:${JSON.stringify(f.retryAfter)}` : '';
      const sr = f.shouldRetry === undefined ? '' : `+xsr:${f.shouldRetry}`;
      return `${f.quota ? 'quota' : ''}${f.status}${ra}${sr}${f.delayMs ? `~${f.delayMs}` : ''}`;
    }
    case 'stream-cut':
    case 'stall':
      return `${f.kind}:${f.chunks}`;
    case 'ok':
    case 'drop':
      return `${f.kind}${f.delayMs ? `~${f.delayMs}` : ''}`;
    default:
      return f.kind;
  }
}
