import { budgetStopAt } from './budget.js';
import { fitsDeadline } from './deadline.js';
import { startDecision } from './decide.js';
import type { RunOutlook } from './decide.js';
import type { Decision } from './decision.js';
import type { ResolvedPlan } from './plan.js';
import { initialState, notBeforeOf, remainingBackends } from './state.js';
import type { CallState } from './state.js';
/**
 * Retry-after not-before times shared by the model calls of one agent turn: epoch ms by model name
 * (`provider:model`). A backend that answered one call with a retry-after is not tried by the next call
 * before that time either. Plain JSON, so it crosses continue-as-new.
 */
export type SharedNotBefore = Record<string, number>;

/** The state of a call that has made no attempt yet, with the shared not-before times of its backends. */
export function seededState(backends: readonly string[], shared: SharedNotBefore): CallState {
  const state = initialState(backends.length);
  state.notBefore = backends.map((model) => shared[model] ?? 0);
  return state;
}

/** Writes a call's not-before times back into the shared map (the later time wins). */
export function shareNotBefore(backends: readonly string[], state: CallState, shared: SharedNotBefore): void {
  backends.forEach((model, i) => {
    const ms = notBeforeOf(state, i);
    if (ms > (shared[model] ?? 0)) shared[model] = ms;
  });
}

/**
 * The first attempt of a call whose backends may still be inside a retry-after from an earlier call of the
 * same turn: the policy's `startDecision`, then, when its backend is blocked, the first remaining backend
 * that is free at once, else one wait until the earliest ends. A wait longer than `retryAfter.maxMs` stops
 * with `retry-after-exceeded`, and so does one that leaves no room before the deadline (as `advance` does).
 * Pure: no clock, no randomness.
 */
export function startWithNotBefore(
  plan: ResolvedPlan,
  state: CallState,
  nowMs: number,
  run: RunOutlook = {},
): Decision {
  const first = startDecision(plan, state, nowMs, run);
  if (first.kind === 'stop' || notBeforeOf(state, first.backend) <= nowMs) return first;
  const remaining = remainingBackends(state);
  const free = remaining.find((i) => notBeforeOf(state, i) <= nowMs);
  if (free !== undefined) {
    const budget = budgetStopAt(run.budget, free);
    if (budget !== undefined) {
      return {
        kind: 'stop',
        reason: 'budget',
        why: `before the first attempt, ${budget}`,
        state: first.state,
      };
    }
    return {
      ...first,
      backend: free,
      why: `first attempt on backend ${free}: the backends before it are inside a retry-after`,
      state: { ...withoutPassed(first.state), backend: free, roundStart: free },
    };
  }
  let target = remaining[0] as number;
  for (const i of remaining) if (notBeforeOf(state, i) < notBeforeOf(state, target)) target = i;
  const budget = budgetStopAt(run.budget, target);
  if (budget !== undefined) {
    return { kind: 'stop', reason: 'budget', why: `before the first attempt, ${budget}`, state: first.state };
  }
  const waitMs = notBeforeOf(state, target) - nowMs;
  const least = `every backend asks to wait, the least ${waitMs} ms`;
  if (waitMs > plan.retryAfter.maxMs) {
    const why = `${least}, over retryAfter.maxMs (${plan.retryAfter.maxMs})`;
    return { kind: 'stop', reason: 'retry-after-exceeded', why, state: first.state };
  }
  if (!fitsDeadline(plan, nowMs, waitMs)) {
    return {
      kind: 'stop',
      reason: 'retry-after-exceeded',
      why: `${least}, beyond the deadline`,
      state: first.state,
    };
  }
  return {
    kind: 'attempt',
    backend: target,
    waitMs,
    why: `first attempt on backend ${target} after ${waitMs} ms (retry-after from an earlier call)`,
    state: { ...withoutPassed(first.state), backend: target, roundStart: target },
  };
}

/** A state whose round starts anew: nothing passed over yet. */
function withoutPassed(state: CallState): CallState {
  const { passed: _passed, ...rest } = state;
  return rest;
}
