import { FailureClass } from './classes.js';

/**
 * What a call (or an agent turn, over all its calls) may spend, counting failed attempts too. Every field is
 * optional; a budget with none limits nothing.
 */
export interface Budget {
  /** The most USD: the provider's reported cost, else the model's `pricing` in the providers file. */
  maxCostUsd?: number;
  maxInputTokens?: number;
  /** Without `settings.maxOutputTokens` the next attempt's output is guessed (best effort). */
  maxOutputTokens?: number;
  maxTotalTokens?: number;
}

/** The fields of a {@link Budget}, in order. */
export const BUDGET_FIELDS = ['maxCostUsd', 'maxInputTokens', 'maxOutputTokens', 'maxTotalTokens'] as const;

/** A model's prices in USD per million tokens (`pricing` of a model in the providers file). */
export interface Pricing {
  inputPerMTok: number;
  outputPerMTok: number;
  /** The price of input tokens read from the prompt cache. @default inputPerMTok */
  cachedInputPerMTok?: number;
}

/** The fields of a {@link Pricing}, in order. */
export const PRICING_FIELDS = ['inputPerMTok', 'outputPerMTok', 'cachedInputPerMTok'] as const;

/** What was spent (or may be): tokens and USD. Plain JSON. */
export interface Spent {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  costUsd: number;
}

/** An attempt as the budget sees it: an `AttemptRecord` is one. */
export interface BudgetAttempt {
  model: string;
  outcome: string;
  /** The failure's class and, when a response came, its HTTP status (a 2xx that failed was answered: billed). */
  failure?: { class: FailureClass; status?: number };
  /** A streamed attempt: how many of its deltas reached the stream (any means the provider was answering). */
  streamedDeltas?: number;
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cachedInputTokens?: number };
  /** The provider's reported cost in USD. */
  cost?: number;
  /** The attempt continued a cut stream: its reported input counts the text it continued. */
  continues?: string;
}

/** What the budget check needs to know about a call before its next attempt. Plain JSON. */
export interface BudgetOutlook {
  budget: Budget;
  /** Spent before this call: an agent turn's earlier calls. */
  before?: Spent;
  /** The largest output (tokens) seen before this call: an agent turn's earlier calls. */
  largestOutputBefore?: number;
  /** The call's chain of backends, `provider:model` by index. */
  backends: readonly string[];
  /** This call's attempts so far, oldest first. */
  attempts: readonly BudgetAttempt[];
  /** Prices by `provider:model` (a model without one costs nothing here; see {@link needsPricing}). */
  pricing: Readonly<Record<string, Pricing>>;
  /** UTF-8 bytes of what the attempt sends (conversation, tools), for the input estimate of bytes / 4. */
  inputBytes: number;
  /** The input estimate counted per part (an image a fixed count, signatures nothing), when the caller made one. */
  inputTokens?: number;
  /** `settings.maxOutputTokens`, when set. */
  maxOutputTokens?: number;
  /**
   * The worker could not say its prices (its `modelRetryConfig` local activity did not answer): a cost limit
   * cannot be checked, so it stops the call (fails closed) rather than counting every attempt free.
   */
  pricingUnknown?: boolean;
  /** What a repair's corrections add to the next attempt's input on one backend (see {@link AddedInput}). */
  addedInput?: AddedInput;
  /**
   * A call that continues cut streams: the tokens its next attempt adds to the input on any backend (the delivered
   * text and the instruction, bytes / 4), counted unless a model's reported input already counts a continuation.
   */
  continuedInputTokens?: number;
}

/**
 * The input that repairs' corrections (the bad answer, then the validator's errors) add to the next attempt on
 * `model`, which alone gets them: another backend gets the original request.
 */
export interface AddedInput {
  model: string;
  /** Tokens added since the last attempt on `model` that reported its input count (that count includes the rest). */
  sinceReport: number;
  /** Tokens of every correction carried, for the estimate from bytes when no count was reported. */
  total: number;
}

/**
 * The tokens one correction adds: the bad answer by its reported count (the failed attempt's output tokens),
 * else its UTF-8 bytes / 4, and the rest of the correction (the validator's errors and the wording around them)
 * by bytes / 4.
 */
export function correctionTokens(
  answerBytes: number,
  correctionBytes: number,
  answerTokens: number | undefined,
): number {
  const rest = Math.max(0, correctionBytes - answerBytes);
  return (answerTokens ?? Math.ceil(answerBytes / 4)) + Math.ceil(rest / 4);
}

/**
 * Classes after which the provider may have billed an attempt that reported no usage: the request was sent and
 * the answer was on its way or arrived (a timeout, a connection or stream cut after sending, a lost worker, an
 * unusable 2xx body).
 */
const MAY_HAVE_BILLED: ReadonlySet<FailureClass> = new Set<FailureClass>([
  FailureClass.StreamInterrupted,
  FailureClass.ConnectionLost,
  FailureClass.ParseFailed,
  FailureClass.ResponseTimeout,
  FailureClass.WorkerLost,
]);

/**
 * Whether an attempt that reported no usage may still have been billed: it succeeded (an answer without usage),
 * its class says the request was sent and answered or cut (`MAY_HAVE_BILLED`), a 2xx answer came and was
 * refused (a content-filter finish, no content, a schema mismatch), or a streamed attempt delivered deltas before
 * it failed (a cut kept under `onCut: 'continue'` as `ServerError` and the like).
 */
export function mayHaveBilled(attempt: BudgetAttempt): boolean {
  if (attempt.outcome === 'succeeded') return true;
  if ((attempt.streamedDeltas ?? 0) > 0) return true;
  const failure = attempt.failure;
  if (failure === undefined) return false;
  if (MAY_HAVE_BILLED.has(failure.class)) return true;
  return failure.status !== undefined && failure.status >= 200 && failure.status < 300;
}

/** Nothing spent. */
export const NOTHING_SPENT: Readonly<Spent> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  costUsd: 0,
});

/** The sum of two spends. */
export function addSpent(a: Spent, b: Spent): Spent {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

/** Whether a call under `budget` needs a price for every backend: it has a cost limit. */
export function needsPricing(budget: Budget | undefined): boolean {
  return budget?.maxCostUsd !== undefined;
}

/** What `usage` costs at `pricing` (cached input at its own price). */
export function pricedCost(usage: NonNullable<BudgetAttempt['usage']>, pricing: Pricing): number {
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(input, usage.cachedInputTokens ?? 0);
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  const output = usage.outputTokens ?? 0;
  return (
    ((input - cached) * pricing.inputPerMTok + cached * cachedPrice + output * pricing.outputPerMTok) / 1e6
  );
}

/**
 * The worst case of the next attempt on `model`: its input tokens (the model's last reported count in this call,
 * else UTF-8 bytes / 4, plus what a repair's corrections added since, plus a continuation's text) plus `maxOutputTokens` (else the largest output seen so far), at
 * the model's price.
 */
export function worstCase(outlook: BudgetOutlook, model: string): Spent {
  const last = outlook.attempts.findLast((a) => a.model === model && a.usage?.inputTokens !== undefined);
  const reported = last?.usage?.inputTokens;
  const added = outlook.addedInput?.model === model ? outlook.addedInput : undefined;
  // A reported count of a continuation counts what it continued (what was delivered after it, it does not).
  const continued = last?.continues !== undefined ? 0 : (outlook.continuedInputTokens ?? 0);
  const inputTokens =
    (reported !== undefined
      ? reported + (added?.sinceReport ?? 0)
      : (outlook.inputTokens ?? Math.ceil(outlook.inputBytes / 4)) + (added?.total ?? 0)) + continued;
  const outputTokens = outlook.maxOutputTokens ?? largestOutput(outlook);
  const pricing = outlook.pricing[model];
  const costUsd = pricing ? pricedCost({ inputTokens, outputTokens }, pricing) : 0;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, costUsd };
}

/** The largest output (tokens) reported so far, this call's and before it: the guess without `maxOutputTokens`. */
export function largestOutput(outlook: BudgetOutlook): number {
  let most = outlook.largestOutputBefore ?? 0;
  for (const a of outlook.attempts) most = Math.max(most, a.usage?.outputTokens ?? 0);
  return most;
}

/**
 * What one attempt counts: its reported usage (and the provider's cost, else its price); with no usage, 0 when
 * it failed before anything could be billed (an HTTP error, a refused connection), and its worst case when it may
 * have been billed ({@link mayHaveBilled}: a success or a 2xx without usage, `ParseFailed`, a cut stream,
 * `ConnectionLost`, `ResponseTimeout`, `WorkerLost`), never 0.
 */
export function attemptSpent(outlook: BudgetOutlook, attempt: BudgetAttempt): Spent {
  const usage = attempt.usage;
  if (usage === undefined) {
    return mayHaveBilled(attempt) ? worstCase(outlook, attempt.model) : NOTHING_SPENT;
  }
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  const pricing = outlook.pricing[attempt.model];
  const costUsd = attempt.cost ?? (pricing ? pricedCost(usage, pricing) : 0);
  return { inputTokens, outputTokens, totalTokens: usage.totalTokens ?? inputTokens + outputTokens, costUsd };
}

/** What the call (with what was spent before it) has spent so far. */
export function spentSoFar(outlook: BudgetOutlook): Spent {
  let spent = outlook.before ?? NOTHING_SPENT;
  for (const a of outlook.attempts) spent = addSpent(spent, attemptSpent(outlook, a));
  return spent;
}

const LIMIT_OF: Readonly<Record<(typeof BUDGET_FIELDS)[number], keyof Spent>> = {
  maxCostUsd: 'costUsd',
  maxInputTokens: 'inputTokens',
  maxOutputTokens: 'outputTokens',
  maxTotalTokens: 'totalTokens',
};

/**
 * Why the next attempt on `model` must not start: spent so far plus its worst case would pass a limit of the
 * budget (the first such field). `undefined` when it fits.
 */
export function budgetStop(outlook: BudgetOutlook, model: string): string | undefined {
  if (outlook.pricingUnknown && needsPricing(outlook.budget)) {
    return (
      `\`budget.maxCostUsd\` (${show(outlook.budget.maxCostUsd ?? 0)}): the worker did not answer its ` +
      '`modelRetryConfig` local activity, so no `pricing` is known and the cost cannot be bounded; run ' +
      "model-retry's activities (createActivities) in the workers of this task queue"
    );
  }
  const spent = spentSoFar(outlook);
  const next = worstCase(outlook, model);
  for (const field of BUDGET_FIELDS) {
    const limit = outlook.budget[field];
    if (limit === undefined) continue;
    const key = LIMIT_OF[field];
    // A float sum of prices may pass an exact limit by rounding alone.
    if (spent[key] + next[key] > limit + 1e-9) {
      return (
        `\`budget.${field}\` (${show(limit)}): spent ${show(spent[key])} + the next attempt's worst case ` +
        `${show(next[key])} on ${model} would pass it`
      );
    }
  }
  return undefined;
}

/** {@link budgetStop} for the backend at `index` of the chain; `undefined` without an outlook. */
export function budgetStopAt(outlook: BudgetOutlook | undefined, index: number): string | undefined {
  const model = outlook?.backends[index];
  return outlook === undefined || model === undefined ? undefined : budgetStop(outlook, model);
}

/**
 * Why no next attempt on any of the backends at `indexes` fits the budget (the last one's reason), or
 * `undefined` when one does: asked when the call stops for a later reason and no next backend was picked.
 */
export function budgetStopAll(
  outlook: BudgetOutlook | undefined,
  indexes: readonly number[],
): string | undefined {
  let why: string | undefined;
  for (const index of indexes) {
    why = budgetStopAt(outlook, index);
    if (why === undefined) return undefined;
  }
  return why;
}

function show(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(6)));
}
