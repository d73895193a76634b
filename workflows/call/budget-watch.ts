import { correctionTokens, largestOutput, spentSoFar } from '../../policy/index.js';
import type { AddedInput, Budget, BudgetOutlook, Spent } from '../../policy/index.js';
import type { AttemptRecord } from '../../common/call.js';
import type { WorkerConfig } from '../../common/worker-config.js';

/** What an agent turn's earlier calls spent, for a call under the turn's budget. */
export interface SpentBefore {
  spent: Spent;
  /** The largest output (tokens) any earlier attempt reported: the guess when `maxOutputTokens` is unset. */
  largestOutput: number;
}

/**
 * What a call with a budget knows before each decision (for the `budget` stop): its limits, the prices of its
 * backends (asked once from the worker through `modelRetryConfig`, a marker in history), what was spent before
 * it, and its own records, which the call keeps updating in place.
 */
export class BudgetWatch {
  private added: AddedInput | undefined;
  /** A call that continues cut streams: the tokens its next attempt adds (see `BudgetOutlook`). */
  private continued = 0;

  constructor(
    private readonly base: Omit<BudgetOutlook, 'attempts'>,
    private readonly records: readonly AttemptRecord[],
  ) {}

  /** The outlook as of now (the records so far, and what repairs add to the next attempt's input). */
  outlook(): BudgetOutlook {
    return {
      ...this.base,
      attempts: this.records,
      ...(this.added ? { addedInput: this.added } : {}),
      ...(this.continued > 0 ? { continuedInputTokens: this.continued } : {}),
    };
  }

  /** The next attempts continue a cut stream: they send `bytes` more (UTF-8) on any backend. */
  continueWith(bytes: number): void {
    this.continued += Math.ceil(bytes / 4);
  }

  /**
   * After failed attempt `record`: a reported input count includes the corrections it was sent; a correction
   * of its answer (`SchemaMismatch`, its bad answer and the correction's UTF-8 bytes) would be sent on top by a
   * repair, so the decision that follows counts it in the next attempt's worst case.
   */
  afterAttempt(record: AttemptRecord, correction?: { answerBytes: number; bytes: number }): void {
    const same = this.added?.model === record.model ? this.added : undefined;
    const reported = record.usage?.inputTokens !== undefined;
    if (!correction) {
      if (same && reported) this.added = { ...same, sinceReport: 0 };
      return;
    }
    const tokens = correctionTokens(correction.answerBytes, correction.bytes, record.usage?.outputTokens);
    this.added = {
      model: record.model,
      sinceReport: (same && !reported ? same.sinceReport : 0) + tokens,
      total: (same?.total ?? 0) + tokens,
    };
  }

  /** The decision dropped the corrections (another backend, a new round): the next input is the original. */
  dropCorrections(): void {
    this.added = undefined;
  }

  /** What the call and what was spent before it count so far. */
  spent(): Spent {
    return spentSoFar(this.outlook());
  }

  /** The largest output seen so far (for the next call of a turn). */
  largestOutput(): number {
    return largestOutput(this.outlook());
  }
}

/**
 * The call's budget watch, or `undefined` for a call without a budget. `config` is the worker's answer
 * (`workerConfig`, asked once per run): the prices of the call's backends, or `undefined` when the worker could
 * not answer (the prices are then unknown). Not async: the caller has the answer already, and an await would be
 * a promise Temporal's sandbox takes a stack trace of.
 */
export function watchBudget(
  budget: Budget | undefined,
  config: WorkerConfig | undefined,
  setup: {
    backends: string[];
    records: readonly AttemptRecord[];
    inputBytes: number;
    /** The input estimate per part (see `estimateInputTokens`). */
    inputTokens?: number;
    maxOutputTokens: number | undefined;
    before: SpentBefore | undefined;
  },
): BudgetWatch | undefined {
  if (budget === undefined) return undefined;
  const pricing = Object.fromEntries(
    setup.backends.flatMap((model) => {
      const price = config?.pricing?.[model];
      return price ? [[model, price]] : [];
    }),
  );
  const base: Omit<BudgetOutlook, 'attempts'> = {
    budget,
    backends: setup.backends,
    pricing,
    ...(config === undefined ? { pricingUnknown: true } : {}),
    inputBytes: setup.inputBytes,
    ...(setup.inputTokens !== undefined ? { inputTokens: setup.inputTokens } : {}),
    ...(setup.maxOutputTokens !== undefined ? { maxOutputTokens: setup.maxOutputTokens } : {}),
    ...(setup.before ? { before: setup.before.spent, largestOutputBefore: setup.before.largestOutput } : {}),
  };
  return new BudgetWatch(base, setup.records);
}
