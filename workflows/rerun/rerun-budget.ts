import { PLAN_DEFAULTS, worstCase } from '../../policy/index.js';
import type { Pricing, RetryPlan } from '../../policy/index.js';
import type { RerunRequest } from '../../common/rerun-input.js';
import { estimateInputTokens } from '../../common/token-estimate.js';
import { jsonBytes } from '../../common/turn-input.js';

/**
 * A rerun's `budgetUsd` over all its child calls. A request's children start only when what was spent, plus what
 * the children not yet ended hold, plus one attempt's worst case of each of the request's own children fits. Each
 * child then holds, and is given as its own `maxCostUsd`, its worst case over its whole plan (one attempt's worst
 * case times the attempts the plan allows), capped by what is left once its siblings' first attempts are kept
 * aside; it holds that until it ends, and what it spent replaces it. So what was spent plus what the children in
 * flight may still spend never passes the budget, however many run side by side and retry.
 */
export class RerunBudget {
  private spentUsd = 0;
  private held = new Map<string, number>();
  /** The largest output seen (originals' and candidates'): the output guess of a request without `maxOutputTokens`. */
  private largestOutput: number;
  /** The most attempts a child's plan allows (a child that would make more is stopped by its own limit). */
  private readonly attempts: number;

  constructor(
    private readonly limitUsd: number,
    private readonly pricing: Readonly<Record<string, Pricing>>,
    requests: readonly RerunRequest[],
    retry: RetryPlan | false | undefined,
  ) {
    this.largestOutput = Math.max(0, ...requests.map((r) => r.original.usage?.outputTokens ?? 0));
    this.attempts = attemptsOf(retry);
  }

  /** The worst case of one attempt of `recorded` on `model`, in USD. */
  worstCaseUsd(recorded: RerunRequest, model: string): number {
    const { request } = recorded;
    return worstCase(
      {
        budget: {},
        backends: [model],
        attempts: [],
        pricing: this.pricing,
        inputBytes: jsonBytes(request.prompt) + (request.tools ? jsonBytes(request.tools) : 0),
        inputTokens: estimateInputTokens(request),
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        largestOutputBefore: this.largestOutput,
      },
      model,
    ).costUsd;
  }

  /**
   * `recorded`'s children, one per model under the key given: each one's `maxCostUsd`, now held; or why they may
   * not start (one attempt of each would pass the budget, given what was spent and what is held).
   */
  admit(recorded: RerunRequest, models: readonly string[], keys: readonly string[]): number[] | string {
    const worst = models.map((m) => this.worstCaseUsd(recorded, m));
    const needed = worst.reduce((sum, w) => sum + w, 0);
    const held = this.heldUsd();
    if (this.spentUsd + held + needed > this.limitUsd)
      return (
        `not started: the rerun's budget of $${round(this.limitUsd)} would be passed (spent $${round(this.spentUsd)}, ` +
        `$${round(held)} held by calls in flight, this request's worst case $${round(needed)})`
      );
    let left = this.limitUsd - this.spentUsd - held;
    let rest = needed;
    return worst.map((w, j) => {
      rest -= w;
      // Its whole plan's worst case, leaving each later sibling at least its first attempt.
      const limit = Math.max(0, Math.min(w * this.attempts, left - rest));
      left -= limit;
      this.held.set(keys[j] as string, limit);
      return limit;
    });
  }

  /** A child ended: what it spent replaces what it held. */
  end(key: string, spentUsd: number, outputTokens: number | undefined): void {
    this.held.delete(key);
    this.spentUsd += spentUsd;
    if (outputTokens !== undefined) this.largestOutput = Math.max(this.largestOutput, outputTokens);
  }

  spent(): number {
    return this.spentUsd;
  }

  private heldUsd(): number {
    let total = 0;
    for (const v of this.held.values()) total += v;
    return total;
  }
}

/**
 * The most attempts a child call makes under `retry`: one without a plan; else the plan's `maxAttempts` (100 by
 * default), and with a list of waits and no deadline one more than the waits (the list is then the bound).
 */
export function attemptsOf(retry: RetryPlan | false | undefined): number {
  if (!retry) return 1;
  const most = retry.maxAttempts ?? PLAN_DEFAULTS.maxAttempts;
  const deadline = retry.deadline !== undefined || retry.deadlineInMs !== undefined;
  return retry.waits && !deadline ? Math.min(most, retry.waits.length + 1) : most;
}

function round(usd: number): string {
  return Number(usd.toPrecision(4)).toString();
}
