import { InvalidRetryPlanError } from './invalid-plan.js';
import { MAX_ATTEMPTS_LIMIT, MAX_PLAN_MS, PLAN_DEFAULTS, noRetryPlan } from './plan.js';
import type { ResolvedPlan } from './plan.js';
import type { Fields } from './plan-fields.js';
import {
  Problems,
  actionsField,
  backoffField,
  historyLimitField,
  isRecord,
  retryAfterField,
  show,
  waitsField,
} from './plan-fields.js';
import { parseIsoInstant } from './time.js';

/** What validation needs to know about the moment of submission. */
export interface PlanContext {
  /** Now, in epoch ms. */
  nowMs: number;
  /** The start of the workflow chain in epoch ms (`deadlineInMs` counts from it). */
  chainStartMs: number;
  /**
   * Whether this is the call's submission, where a deadline without room for `reserveMs` + `minAttemptMs`
   * is refused. The workflow passes `false` when it resolves a plan that was accepted at submission: a call
   * queued past its deadline then stops with `deadline` and no attempt (see `startDecision`).
   * @default true
   */
  atSubmission?: boolean;
}

const PLAN_KEYS = [
  'waits',
  'backoff',
  'maxAttempts',
  'deadline',
  'deadlineInMs',
  'reserveMs',
  'attemptTimeoutMs',
  'minAttemptMs',
  'retryAfter',
  'actions',
  'retriesPerBackend',
  'historyLimit',
] as const;

/**
 * Checks a caller's `retry` option and fills in every default. `undefined`, `null` and `false` mean no
 * retry (one attempt); `{}` means the default backoff. Every problem is collected and reported at once in
 * one {@link InvalidRetryPlanError}, each naming its field and the fix.
 */
export function validatePlan(plan: unknown, ctx: PlanContext): ResolvedPlan {
  if (plan === undefined || plan === null || plan === false) return noRetryPlan();
  if (!isRecord(plan)) {
    const got = Array.isArray(plan) ? 'an array' : show(plan);
    throw new InvalidRetryPlanError([
      {
        field: 'retry',
        message: `A retry plan must be an object, \`false\` or absent, not ${got}: pass {} for the default backoff, or \`false\` for one attempt.`,
      },
    ]);
  }
  const p = new Problems();
  p.unknownKeys(plan, PLAN_KEYS, '');

  const waits = waitsField(plan, p);
  const backoff =
    plan.backoff !== undefined || waits === undefined ? backoffField(plan.backoff ?? {}, p) : undefined;
  if (waits !== undefined && plan.backoff !== undefined) {
    p.refuse('backoff', 'cannot be given with `waits`: keep one of `waits` (an explicit list) or `backoff`.');
  }
  const maxAttempts = p.number(plan, 'maxAttempts', '', 1, 'give a whole number from 1 to 1000', true);
  if (maxAttempts !== undefined && maxAttempts > MAX_ATTEMPTS_LIMIT) {
    p.refuse('maxAttempts', `is ${maxAttempts}, over the limit of ${MAX_ATTEMPTS_LIMIT}: give at most 1000.`);
  }
  const reserveMs = p.number(
    plan,
    'reserveMs',
    '',
    0,
    'give the time left to the host in ms, e.g. 60000',
    false,
    true,
  );
  const timeoutMs = p.number(
    plan,
    'attemptTimeoutMs',
    '',
    Number.MIN_VALUE,
    'give a positive time in ms',
    false,
    true,
  );
  const minAttemptMs = p.number(plan, 'minAttemptMs', '', 0, 'give a time in ms, e.g. 1000', false, true);
  const resolved: ResolvedPlan = {
    retry: true,
    maxAttempts: maxAttempts ?? PLAN_DEFAULTS.maxAttempts,
    reserveMs: reserveMs ?? PLAN_DEFAULTS.reserveMs,
    attemptTimeoutMs: timeoutMs ?? PLAN_DEFAULTS.attemptTimeoutMs,
    minAttemptMs: minAttemptMs ?? PLAN_DEFAULTS.minAttemptMs,
    retryAfter: { ...PLAN_DEFAULTS.retryAfter },
    actions: {},
    retriesPerBackend: PLAN_DEFAULTS.retriesPerBackend,
    historyLimit: { ...PLAN_DEFAULTS.historyLimit },
  };
  if (resolved.minAttemptMs > resolved.attemptTimeoutMs) {
    p.refuse(
      'minAttemptMs',
      `(${resolved.minAttemptMs}) cannot be more than \`attemptTimeoutMs\` (${resolved.attemptTimeoutMs}): lower \`minAttemptMs\` or raise \`attemptTimeoutMs\`.`,
    );
  }
  resolved.retriesPerBackend =
    p.number(plan, 'retriesPerBackend', '', 0, 'give a whole number, e.g. 2', true) ??
    resolved.retriesPerBackend;
  resolved.retryAfter = retryAfterField(plan.retryAfter, p);
  resolved.actions = actionsField(plan.actions, p);
  resolved.historyLimit = historyLimitField(plan.historyLimit, p);
  const deadlineMs = deadlineField(plan, ctx, resolved.reserveMs + resolved.minAttemptMs, p);

  if (p.list.length > 0) throw new InvalidRetryPlanError(p.list);
  if (waits !== undefined) resolved.waits = waits;
  if (backoff !== undefined) resolved.backoff = backoff;
  if (deadlineMs !== undefined) resolved.deadlineMs = deadlineMs;
  return resolved;
}

/** `deadline` or `deadlineInMs` as an absolute time, refused at submission without room for an attempt. */
function deadlineField(plan: Fields, ctx: PlanContext, room: number, p: Problems): number | undefined {
  let deadlineMs: number | undefined;
  let field: 'deadline' | 'deadlineInMs' = 'deadline';
  if (plan.deadline !== undefined) {
    deadlineMs = typeof plan.deadline === 'string' ? parseIsoInstant(plan.deadline) : undefined;
    if (deadlineMs === undefined) {
      p.refuse(
        'deadline',
        `is ${show(plan.deadline)}: give an ISO 8601 time with a zone, e.g. "2026-03-01T12:00:00Z".`,
      );
    }
  }
  if (plan.deadlineInMs !== undefined) {
    if (plan.deadline !== undefined) {
      p.refuse(
        'deadlineInMs',
        'cannot be given with `deadline`: keep one of `deadline` (a time) or `deadlineInMs`.',
      );
      return undefined;
    }
    field = 'deadlineInMs';
    const inMs = p.number(
      plan,
      'deadlineInMs',
      '',
      0,
      'give ms from the start of the workflow chain',
      false,
      true,
    );
    if (inMs !== undefined) deadlineMs = ctx.chainStartMs + inMs;
  }
  if (deadlineMs !== undefined && deadlineMs - ctx.nowMs > MAX_PLAN_MS) {
    p.refuse(
      field,
      `is more than ${MAX_PLAN_MS} ms (100 years) away: at most 100 years, give an earlier deadline.`,
    );
    return undefined;
  }
  if (deadlineMs !== undefined && (ctx.atSubmission ?? true) && deadlineMs - ctx.nowMs < room) {
    const left = Math.max(0, deadlineMs - ctx.nowMs);
    p.refuse(
      field,
      `leaves ${left} ms at submission, less than \`reserveMs\` + \`minAttemptMs\` (${room} ms): move the deadline later, or lower \`reserveMs\`.`,
    );
  }
  return deadlineMs;
}
