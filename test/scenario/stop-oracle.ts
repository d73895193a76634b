import { budgetStop } from '../../policy/index.js';
import type { BudgetOutlook } from '../../policy/index.js';
import type { AttemptRecord } from '../../common/call.js';
import { jsonBytes } from '../../common/turn-input.js';
import { estimateInputTokens } from '../../common/token-estimate.js';
import { messagesOf } from '../../common/call-input/call-input.js';
import { intendedAction } from './expected.js';
import { refusedForEnvelope } from './tenants.js';
import { requestOf } from './scenario.js';
import type { Fault, Scenario } from './scenario.js';

/** A broken invariant; `known` names the defect already being fixed elsewhere, when it is that one. */
export interface Violation {
  invariant: string;
  message: string;
  known?: string;
}

/** Known defects being fixed in other branches: the suite is expected to find them until they land. */
export const KNOWN = {
  cancel: 'K1 cancel during an in-flight attempt that then ends on its own -> FAILED, not CANCELED',
  chainWaits: 'K2 a chain with a short waits list stops attempts-exhausted before trying the other backends',
  emptyLength: 'K3 an empty answer with finish_reason length is not OutputLimit',
  cleanCut: 'K4 a clean stream cut (no finish chunk, no [DONE]) is not ConnectionLost / StreamInterrupted',
  /** Found with neighbour calls (test/scenario/FINDINGS.md, F2), fixed: the tag names it should it return. */
  unsentTimeout:
    'F2 an attempt that sent nothing is ResponseTimeout when the deadline fired first (fleet health probe claim wait)',
} as const;

/** What the oracle knows of each record: the fault that answered it, when a request did. */
export interface Attempt {
  record: AttemptRecord;
  fault?: Fault;
}

/**
 * Checks the stop reason of a call that ended without an answer and without a cancellation against the
 * contract's order of evaluation, recomputed from the records and the plan. Where timing decides (the deadline
 * rule, a retry-after against the clock) the oracle accepts every reason that timing could give.
 */
export function checkStopReason(
  s: Scenario,
  attempts: Attempt[],
  actual: string | undefined,
  models: readonly string[] = [],
): Violation[] {
  // A call that continues cut streams never stops for a cut: the cut keeps its class and the plan decides.
  if (s.onCut === 'continue' && actual === 'stream-interrupted') {
    return [{ invariant: 'stop-reason', message: "stopped stream-interrupted under onCut 'continue'" }];
  }
  const last = attempts.at(-1);
  if (last === undefined) {
    if (actual === 'budget' && overBudget(s, attempts, models, [0]).all) return [];
    return actual === 'deadline' && s.plan !== false && s.plan.deadline
      ? []
      : [{ invariant: 'stop-reason', message: `no attempt, stop reason ${actual}` }];
  }
  const cls = last.record.failure?.class;
  if (cls === undefined) return [];
  // An attempt refused for its tenant's envelope stops the call, whatever its class's action.
  if (refusedForEnvelope(last.record)) {
    return actual === 'budget'
      ? []
      : [{ invariant: 'stop-reason', message: `refused for its tenant's envelope, but stopped ${actual}` }];
  }
  const overrides = s.plan === false ? undefined : s.plan.actions;
  const action = (a: Attempt): string =>
    intendedAction(a.record.failure?.class ?? '', overrides, shouldRetry(a));
  const a = action(last);
  const dropped = new Set(
    attempts.filter((x) => x.record.failure && action(x) === 'drop').map((x) => x.record.backend),
  );
  const maxAttempts = s.plan === false ? 1 : s.plan.maxAttempts;
  const expect = (reason: string, why: string): Violation[] =>
    actual === reason
      ? []
      : [{ invariant: 'stop-reason', message: `expected ${reason} (${why}), got ${actual}` }];

  if (cls === 'StreamInterrupted')
    return expect('stream-interrupted', 'the last attempt is StreamInterrupted');
  if (a === 'abort') return expect('non-retryable', `${cls} aborts`);
  if (a === 'drop' && s.chain.every((_, i) => dropped.has(i)))
    return expect('non-retryable', `${cls} drops the last backend`);
  if (s.budget) {
    const remaining = s.chain.map((_, i) => i).filter((i) => !dropped.has(i));
    const over = overBudget(s, attempts, models, remaining);
    if (over.all) return expect('budget', 'no next attempt fits the budget');
    if (actual === 'budget' && !over.any) {
      return [{ invariant: 'stop-reason', message: 'stopped budget, though every next attempt fits it' }];
    }
    if (actual === 'budget') return [];
  }
  if (attempts.length >= maxAttempts)
    return expect('attempts-exhausted', `${attempts.length} of maxAttempts ${maxAttempts}`);

  // What may stop a call before maxAttempts, as far as the records tell.
  const allowed = new Set<string>();
  const plan = s.plan;
  if (plan === false) return expect('attempts-exhausted', 'no plan');
  if (plan.deadline) allowed.add('deadline');
  const retryAfterSeen = attempts.some((x) => x.record.failure?.retryAfterMs !== undefined);
  if (retryAfterSeen) allowed.add('retry-after-exceeded');
  const waitsUsed = plan.waits !== undefined && !plan.deadline && waitsTaken(attempts) >= plan.waits.length;
  let chainWaits = false;
  if (waitsUsed) {
    const untried = untriedBackends(s, attempts, dropped);
    if (untried.length === 0 || retryAfterSeen) allowed.add('attempts-exhausted');
    else chainWaits = a === 'retry-same';
  }
  if (actual !== undefined && allowed.has(actual)) return [];
  const message =
    `stopped ${actual} after ${attempts.length} attempt(s) (last ${cls}, action ${a}); ` +
    `the contract allows only ${[...allowed].join(', ') || 'going on'} here`;
  return [
    {
      invariant: 'stop-reason',
      message,
      ...(chainWaits && actual === 'attempts-exhausted' ? { known: KNOWN.chainWaits } : {}),
    },
  ];
}

/**
 * Whether the next attempt on all (or any) of the backends at `indexes` would pass the scenario's budget, by the
 * contract's rule recomputed from the records: what they billed (worst cases for what may have been billed) plus
 * the next attempt's worst case.
 */
/**
 * No attempt starts that the budget forbids: before each attempt, what the attempts before it billed plus its own
 * worst case fits the scenario's budget.
 */
export function checkBudget(s: Scenario, attempts: Attempt[], models: readonly string[]): Violation[] {
  if (!s.budget) return [];
  const out: Violation[] = [];
  for (const [i, x] of attempts.entries()) {
    const outlook = budgetOutlook(s, attempts.slice(0, i), models);
    const why = budgetStop(outlook, x.record.model);
    if (why !== undefined) {
      out.push({ invariant: 'budget', message: `${x.record.modelCallId} started although ${why}` });
    }
  }
  return out;
}

function budgetOutlook(
  s: Scenario,
  attempts: Attempt[],
  models: readonly string[],
  bytesPerChar = 1,
): BudgetOutlook {
  // Under `continue`, each cut that delivered text adds it (its JSON's UTF-8 bytes, 1 to 6 a UTF-16 unit, plus the
  // instruction's 1 KB) to the next attempts' input: the workflow counts the exact bytes, the oracle a bound.
  let continued = 0;
  for (const { record: r } of attempts) {
    const chars = r.deliveredChars ?? 0;
    if (s.onCut === 'continue' && r.outcome !== 'succeeded' && chars > 0) {
      continued += Math.ceil((chars * bytesPerChar + 2 + 1024) / 4);
    }
  }
  return {
    ...(continued > 0 ? { continuedInputTokens: continued } : {}),
    budget: s.budget ?? {},
    backends: models,
    attempts: attempts.map((x) => x.record),
    pricing: {},
    // What the workflow measures: the conversation the attempt sends (the runner's prompt), and its estimate per part.
    inputBytes: jsonBytes({ prompt: messagesOf({ model: 'x:y', ...requestOf(s) }) }),
    inputTokens: estimateInputTokens({ prompt: messagesOf({ model: 'x:y', ...requestOf(s) }) }),
  };
}

function overBudget(
  s: Scenario,
  attempts: Attempt[],
  models: readonly string[],
  indexes: number[],
): { all: boolean; any: boolean } {
  if (!s.budget || indexes.length === 0) return { all: false, any: false };
  // The continuation's bytes are known only within bounds: every backend over at the least, some at the most.
  const least = budgetOutlook(s, attempts, models, 1);
  const most = budgetOutlook(s, attempts, models, 6);
  const overLeast = indexes.map((i) => budgetStop(least, models[i] ?? '') !== undefined);
  const overMost = indexes.map((i) => budgetStop(most, models[i] ?? '') !== undefined);
  return { all: overLeast.every(Boolean), any: overMost.some(Boolean) };
}

/**
 * The `x-should-retry` the attempt's worker read: the step's, when the attempt read the response's status (a
 * worker killed while the response was on its way, or a timeout before it, never saw the header).
 */
function shouldRetry(a: Attempt): boolean | undefined {
  if (a.record.failure?.status === undefined) return undefined;
  return a.fault?.kind === 'status' ? a.fault.shouldRetry : undefined;
}

/**
 * Where each round of the call starts: a round goes on while a move (an advance or drop) reaches a backend not
 * yet tried in it (after the current one, wrapping around past the last); a move back to one it tried starts the
 * next round. A same-backend retry stays in its round.
 */
function roundStarts(attempts: Attempt[]): boolean[] {
  const starts: boolean[] = [];
  let tried = new Set<number>();
  for (const [i, x] of attempts.entries()) {
    const prev = attempts[i - 1];
    const fresh =
      prev === undefined || (prev.record.failure?.action !== 'retry-same' && tried.has(x.record.backend));
    if (fresh) tried = new Set();
    tried.add(x.record.backend);
    starts.push(fresh);
  }
  return starts;
}

/**
 * Waits the call took: a same-backend retry always takes one, a move that starts a new round takes one; without a
 * deadline a wait for a cooling backend counts too (the contract's "Fleet health": the list still bounds the
 * call). Counted from the records, not from `retryInMs` (a listed wait may be 0 ms).
 */
export function waitsTaken(attempts: Attempt[]): number {
  const starts = roundStarts(attempts);
  let n = 0;
  for (const [i, x] of attempts.entries()) {
    if (i + 1 >= attempts.length || x.record.failure === undefined) continue;
    // A move that waited (a cooling wait that starts a new round where this one never went) counts as well.
    const waited = (x.record.retryInMs ?? 0) > 0;
    if (x.record.failure.action === 'retry-same' || starts[i + 1] === true || waited) n += 1;
  }
  return n;
}

/**
 * Backends the call could still try at once instead of stopping: any backend not dropped and not tried in this
 * round, after the current one and wrapping around to the round's first.
 */
function untriedBackends(s: Scenario, attempts: Attempt[], dropped: Set<number>): number[] {
  const starts = roundStarts(attempts);
  const first = starts.lastIndexOf(true);
  const round = attempts.slice(Math.max(first, 0));
  const tried = new Set(round.map((x) => x.record.backend));
  const start = round[0]?.record.backend ?? 0;
  const current = attempts.at(-1)?.record.backend ?? 0;
  const n = s.chain.length;
  const order: number[] = [];
  for (let i = current + 1; i < n; i++) order.push(i);
  for (let i = 0; i < start; i++) order.push(i);
  return order.filter((i) => !dropped.has(i) && !tried.has(i));
}

/**
 * The action on every failed attempt that another attempt followed: the intended one (a `retry-same` may become an
 * `advance`: its retries, waits or retry-after can run out), a `retry-same` goes back to the same backend, and no
 * backend gets more than `retriesPerBackend` same-backend retries in a row.
 */
export function checkActions(s: Scenario, attempts: Attempt[]): Violation[] {
  const out: Violation[] = [];
  const overrides = s.plan === false ? undefined : s.plan.actions;
  const perBackend = s.plan === false ? 2 : (s.plan.retriesPerBackend ?? 2);
  let inARow = 0;
  for (const [i, x] of attempts.entries()) {
    const next = attempts[i + 1];
    const failure = x.record.failure;
    if (next === undefined || failure === undefined) continue;
    const intended = intendedAction(failure.class, overrides, shouldRetry(x));
    const allowed = intended === 'retry-same' ? ['retry-same', 'advance'] : [intended];
    const where = `${x.record.modelCallId} (${failure.class})`;
    if (!allowed.includes(failure.action ?? '')) {
      out.push({
        invariant: 'action',
        message: `${where}: action ${failure.action}, expected ${allowed.join(' | ')}`,
      });
    }
    if (failure.action === 'retry-same') {
      inARow += 1;
      if (next.record.backend !== x.record.backend) {
        out.push({
          invariant: 'action',
          message: `${where}: retry-same went to backend ${next.record.backend}`,
        });
      }
      if (inARow > perBackend) {
        out.push({
          invariant: 'action',
          message: `${where}: ${inARow} same-backend retries in a row (${perBackend})`,
        });
      }
    } else {
      inARow = 0;
    }
  }
  return out;
}
