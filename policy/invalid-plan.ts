/** One thing wrong with a retry plan. */
export interface PlanProblem {
  /** The field's path in the plan: `waits`, `waits[2]`, `backoff.factor`, `actions.RateLimited`, `retry`. */
  field: string;
  /** What is wrong and the fix, naming the field. */
  message: string;
}

/**
 * A retry plan that cannot run. Thrown by `validatePlan` with every problem found (not just the first):
 * `field` and the start of the message name the first, `problems` lists all. The CLI exits 2 on it; a
 * workflow turns it into a non-retryable `ApplicationFailure` of type `InvalidRetryPlan`.
 */
export class InvalidRetryPlanError extends Error {
  override readonly name = 'InvalidRetryPlan';
  /** The first offending field. */
  readonly field: string;
  /** Every problem found, in the order of the plan's fields. */
  readonly problems: readonly PlanProblem[];

  constructor(problems: readonly PlanProblem[]) {
    const first = problems[0] ?? { field: 'retry', message: 'The retry plan is invalid.' };
    const message =
      problems.length <= 1
        ? first.message
        : `${problems.length} problems in the retry plan:\n${problems.map((p) => `- ${p.message}`).join('\n')}`;
    super(message);
    this.field = first.field;
    this.problems = problems.length > 0 ? problems : [first];
  }
}
