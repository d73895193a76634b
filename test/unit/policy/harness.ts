import type {
  CallState,
  Decision,
  Failure,
  FailureClass,
  RandomSource,
  ResolvedPlan,
} from '../../../policy/index.js';
import {
  attemptTimeoutMs,
  decide,
  initialState,
  startDecision,
  validatePlan,
} from '../../../policy/index.js';

/** Plans in tests are resolved as if submitted at t = 0 by a chain that started at t = 0. */
export const T0 = 0;

/** A validated plan, submitted at `nowMs` (default 0). */
export function plan(raw: unknown, nowMs = T0): ResolvedPlan {
  return validatePlan(raw, { nowMs, chainStartMs: T0 });
}

/** A failure of the given class, with optional retry-after and x-should-retry. */
export function fail(cls: FailureClass, extra: Omit<Failure, 'class'> = {}): Failure {
  return { class: cls, ...extra };
}

/** A random source that always returns `value`. */
export const fixedRandom =
  (value: number): RandomSource =>
  () =>
    value;

/** A seeded random source (mulberry32), for property tests. */
export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One attempt as the simulated workflow made it. */
export interface AttemptTrace {
  backend: number;
  /** The wait before this attempt (the previous attempt's `retryInMs`). */
  waitMs: number;
  startMs: number;
  endMs: number;
  /** The action that led to this attempt (absent for the first). */
  action?: string;
  /** The failure this attempt ended with, or `undefined` if it succeeded. */
  failure?: Failure;
}

export interface RunResult {
  attempts: AttemptTrace[];
  /** `succeeded`, or the stop reason `decide` gave. */
  outcome: string;
  last: Decision;
  /** Every decision in order, with the state it was made from. */
  decisions: { from: CallState; decision: Decision; nowMs: number; failure?: Failure }[];
}

export type Script = (attempt: number, backend: number, startMs: number) => Failure | 'ok';

/** A script that plays the given answers in order and fails loudly when it runs out of them. */
export function scripted(answers: readonly (Failure | 'ok')[]): Script {
  return (attempt) => {
    const answer = answers[attempt - 1];
    if (answer === undefined) throw new Error(`the script has no answer for attempt ${attempt}`);
    return answer;
  };
}

/**
 * Plays a call the way the workflow will: start, then per attempt wait, run (taking `attemptMs`, cut at
 * the attempt timeout T), and ask `decide` what next.
 */
export function run(options: {
  plan: ResolvedPlan;
  backends?: number;
  script: Script;
  startMs?: number;
  attemptMs?: number | ((attempt: number) => number);
  random?: RandomSource;
  /** The call's `output.repairs` (default: the policy's). */
  repairs?: number;
}): RunResult {
  const { plan: p, script } = options;
  const random = options.random ?? fixedRandom(0);
  let now = options.startMs ?? T0;
  const attempts: AttemptTrace[] = [];
  const decisions: RunResult['decisions'] = [];
  const first = initialState(options.backends ?? 1);
  let d = startDecision(p, first, now);
  decisions.push({ from: first, decision: d, nowMs: now });
  while (d.kind === 'attempt') {
    if (attempts.length > 2000) throw new Error('runaway call: more than 2000 attempts');
    now += d.waitMs;
    const n = attempts.length + 1;
    const took = typeof options.attemptMs === 'function' ? options.attemptMs(n) : (options.attemptMs ?? 100);
    const startMs = now;
    const endMs = startMs + Math.min(took, attemptTimeoutMs(p, startMs));
    const answer = script(n, d.backend, startMs);
    const trace: AttemptTrace = { backend: d.backend, waitMs: d.waitMs, startMs, endMs };
    if (d.action !== undefined) trace.action = d.action;
    attempts.push(trace);
    now = endMs;
    if (answer === 'ok') return { attempts, outcome: 'succeeded', last: d, decisions };
    trace.failure = answer;
    const from = d.state;
    d = decide(
      p,
      from,
      answer,
      now,
      random,
      options.repairs === undefined ? {} : { repairs: options.repairs },
    );
    decisions.push({ from, decision: d, nowMs: now, failure: answer });
  }
  return { attempts, outcome: d.reason, last: d, decisions };
}

/** The waits between attempts (each attempt's `retryInMs` before it), first attempt excluded. */
export const waitsOf = (r: RunResult): number[] => r.attempts.slice(1).map((a) => a.waitMs);
/** The backend of every attempt. */
export const backendsOf = (r: RunResult): number[] => r.attempts.map((a) => a.backend);
