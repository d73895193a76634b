import { worstCase } from '../../policy/index.js';
import type { Pricing } from '../../policy/index.js';
import type { RerunRequest } from '../../common/rerun-input.js';
import { estimateInputTokens } from '../../common/token-estimate.js';
import { jsonBytes } from '../turn/turn-input.js';

/**
 * A rerun's `budgetUsd` over all its child calls. A request's children start only when what was spent, plus the
 * worst case of every child still running, plus the worst cases of the request's own children fits; once one
 * request does not fit, no later request starts (the rerun stops starting children, it does not skip ahead to
 * cheaper ones). Each child is given what is left (the budget less what was spent and what the others hold) as its
 * own `maxCostUsd`, so its attempts stop inside it.
 */
export class RerunBudget {
  private spentUsd = 0;
  private held = new Map<string, number>();
  /** The largest output seen (originals' and candidates'): the output guess of a request without `maxOutputTokens`. */
  private largestOutput: number;

  constructor(
    private readonly limitUsd: number,
    private readonly pricing: Readonly<Record<string, Pricing>>,
    requests: readonly RerunRequest[],
  ) {
    this.largestOutput = Math.max(0, ...requests.map((r) => r.original.usage?.outputTokens ?? 0));
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

  /** Why `recorded`'s children may not start (spent + held + their worst cases would pass the limit), or undefined. */
  refusal(recorded: RerunRequest, models: readonly string[]): string | undefined {
    const needed = models.reduce((sum, m) => sum + this.worstCaseUsd(recorded, m), 0);
    const held = this.heldUsd();
    if (this.spentUsd + held + needed <= this.limitUsd) return undefined;
    return (
      `not started: the rerun's budget of $${round(this.limitUsd)} would be passed (spent $${round(this.spentUsd)}, ` +
      `$${round(held)} held by calls in flight, this request's worst case $${round(needed)})`
    );
  }

  /** A child starts: it holds its worst case; returns the `maxCostUsd` it is given (what the others leave). */
  start(key: string, worstUsd: number): number {
    const left = this.limitUsd - this.spentUsd - this.heldUsd();
    this.held.set(key, worstUsd);
    // Less than its worst case is left only when calls that ended spent more than they held: the child's own
    // budget then stops it before an attempt it cannot pay for.
    return Math.max(left, 0);
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

function round(usd: number): string {
  return Number(usd.toPrecision(4)).toString();
}
