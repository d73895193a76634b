import { DEFAULT_ACTIONS, isAction } from './classes.js';
import type { Action, OverridableClass } from './classes.js';
import type { PlanProblem } from './invalid-plan.js';
import { MAX_HISTORY_LIMIT, MAX_PLAN_MS, PLAN_DEFAULTS, TEMPORAL_LIMITS } from './plan.js';
import type { BackoffPlan, HistoryLimitPlan, RetryAfterPlan } from './plan.js';

/** A JSON object as read from a caller. */
export type Fields = Record<string, unknown>;

export const isRecord = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as a message shows it. */
export const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

const BACKOFF_KEYS = ['initialMs', 'factor', 'maxMs', 'jitterMs'] as const;
const RETRY_AFTER_KEYS = ['honor', 'maxMs'] as const;
const HISTORY_LIMIT_KEYS = ['bytes', 'events'] as const;

/** Collects the problems of one plan; every checker reports here and goes on, so all are found at once. */
export class Problems {
  readonly list: PlanProblem[] = [];

  /** Records a problem; `message` continues "RetryPlan `field` ..." and ends with the fix. */
  refuse(field: string, message: string): void {
    this.list.push({ field, message: `RetryPlan \`${field}\` ${message}` });
  }

  /** Refuses every key of `obj` not in `known`, suggesting a known key that differs only in case. */
  unknownKeys(obj: Fields, known: readonly string[], prefix: string): void {
    for (const key of Object.keys(obj)) {
      if (known.includes(key)) continue;
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
      const hint =
        near !== undefined ? `did you mean \`${prefix}${near}\`?` : `known fields: ${known.join(', ')}.`;
      this.refuse(`${prefix}${key}`, `is not a known field: remove it (${hint})`);
    }
  }

  /**
   * A finite number of at least `min` (more than 0 when `min` is `Number.MIN_VALUE`), whole if `integer`;
   * `undefined` when absent or refused.
   */
  number(
    obj: Fields,
    key: string,
    prefix: string,
    min: number,
    fix: string,
    integer = false,
    /** A time in ms: at most {@link MAX_PLAN_MS}. */
    ms = false,
  ): number | undefined {
    const value = obj[key];
    if (value === undefined) return undefined;
    const field = `${prefix}${key}`;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.refuse(field, `must be a finite number, not ${show(value)}: ${fix}.`);
    } else if (value < min) {
      const bound = min === Number.MIN_VALUE ? 'more than 0' : `at least ${min}`;
      this.refuse(field, `is ${value}, but must be ${bound}: ${fix}.`);
    } else if (integer && !Number.isInteger(value)) {
      this.refuse(field, `is ${value}, but must be a whole number: ${fix}.`);
    } else if (ms && value > MAX_PLAN_MS) {
      this.refuse(field, `is ${value}, ${OVER_MAX_MS}: ${fix}.`);
    } else {
      return value;
    }
    return undefined;
  }
}

/** How a time over {@link MAX_PLAN_MS} is refused (after "is N, "). */
export const OVER_MAX_MS = `but must be at most ${MAX_PLAN_MS} ms (100 years)`;

/** `waits`: a non-empty list of finite waits of 0 ms or more, each at most {@link MAX_PLAN_MS}. */
export function waitsField(plan: Fields, p: Problems): number[] | undefined {
  const waits = plan.waits;
  if (waits === undefined) return undefined;
  if (!Array.isArray(waits)) {
    p.refuse('waits', `must be a list of waits in ms like [1000, 5000], not ${show(waits)}.`);
    return [];
  }
  if (waits.length === 0) {
    p.refuse(
      'waits',
      'is empty: give at least one wait in ms (e.g. [1000, 5000]), or omit `waits` for the default backoff.',
    );
  }
  waits.forEach((w: unknown, i) => {
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) {
      p.refuse(`waits[${i}]`, `is ${show(w)}: every wait must be a finite number of ms, 0 or more.`);
    } else if (w > MAX_PLAN_MS) {
      p.refuse(`waits[${i}]`, `is ${w}, ${OVER_MAX_MS}: give a shorter wait.`);
    }
  });
  return waits.map((w: unknown) => (typeof w === 'number' ? w : 0));
}

/** `backoff` with its defaults filled in; `undefined` when it is not an object. */
export function backoffField(raw: unknown, p: Problems): Required<BackoffPlan> | undefined {
  if (!isRecord(raw)) {
    p.refuse('backoff', `must be an object like { initialMs: 1000, factor: 2 }, not ${show(raw)}.`);
    return undefined;
  }
  p.unknownKeys(raw, BACKOFF_KEYS, 'backoff.');
  const d = PLAN_DEFAULTS.backoff;
  const backoff = {
    initialMs:
      p.number(raw, 'initialMs', 'backoff.', 0, 'give a wait in ms, e.g. 1000', false, true) ?? d.initialMs,
    factor:
      p.number(raw, 'factor', 'backoff.', 1, 'use 1 for equal waits or more to grow them, e.g. 2') ??
      d.factor,
    maxMs: p.number(raw, 'maxMs', 'backoff.', 0, 'give a cap in ms, e.g. 30000', false, true) ?? d.maxMs,
    jitterMs:
      p.number(raw, 'jitterMs', 'backoff.', 0, 'give a width in ms, or 0 for no jitter', false, true) ??
      d.jitterMs,
  };
  if (backoff.maxMs < backoff.initialMs) {
    p.refuse(
      'backoff.maxMs',
      `(${backoff.maxMs}) cannot be less than \`backoff.initialMs\` (${backoff.initialMs}): raise \`backoff.maxMs\` or lower \`backoff.initialMs\`.`,
    );
  }
  return backoff;
}

/** `retryAfter` with its defaults filled in. */
export function retryAfterField(raw: unknown, p: Problems): Required<RetryAfterPlan> {
  const resolved: Required<RetryAfterPlan> = { ...PLAN_DEFAULTS.retryAfter };
  if (raw === undefined) return resolved;
  if (!isRecord(raw)) {
    p.refuse('retryAfter', `must be an object like { honor: true, maxMs: 300000 }, not ${show(raw)}.`);
    return resolved;
  }
  p.unknownKeys(raw, RETRY_AFTER_KEYS, 'retryAfter.');
  if (typeof raw.honor === 'boolean') resolved.honor = raw.honor;
  else if (raw.honor !== undefined)
    p.refuse('retryAfter.honor', `must be true or false, not ${show(raw.honor)}.`);
  resolved.maxMs =
    p.number(raw, 'maxMs', 'retryAfter.', 0, 'give the longest accepted wait in ms', false, true) ??
    resolved.maxMs;
  return resolved;
}

/** `actions`: overridable class names mapped to actions. */
export function actionsField(raw: unknown, p: Problems): Partial<Record<OverridableClass, Action>> {
  const actions: Partial<Record<OverridableClass, Action>> = {};
  if (raw === undefined) return actions;
  if (!isRecord(raw)) {
    p.refuse('actions', `must be an object like { RateLimited: 'retry-same' }, not ${show(raw)}.`);
    return actions;
  }
  for (const [name, action] of Object.entries(raw)) {
    if (name === 'StreamInterrupted') {
      p.refuse(
        'actions.StreamInterrupted',
        'cannot be overridden: a stream that reached its caller always stops the call; remove it.',
      );
    } else if (!Object.hasOwn(DEFAULT_ACTIONS, name)) {
      p.refuse(
        `actions.${name}`,
        `is not a failure class: remove it (classes: ${Object.keys(DEFAULT_ACTIONS).join(', ')}).`,
      );
    } else if (!isAction(action)) {
      p.refuse(
        `actions.${name}`,
        `is ${show(action)}: use one of 'abort', 'retry-same', 'advance', 'drop' (or 'repair' for SchemaMismatch).`,
      );
    } else if (action === 'repair' && name !== 'SchemaMismatch') {
      // A repair sends back an answer and what the schema validator said of it: only a SchemaMismatch has both.
      p.refuse(
        `actions.${name}`,
        "is 'repair', which only SchemaMismatch can take (it resends the bad answer with the validator's errors); use 'abort', 'retry-same', 'advance' or 'drop'.",
      );
    } else {
      actions[name as OverridableClass] = action;
    }
  }
  return actions;
}

/**
 * `historyLimit` with its defaults filled in: whole numbers of at least 1, at most {@link MAX_HISTORY_LIMIT}
 * (under Temporal's own limits, with room for the call to stop and report).
 */
export function historyLimitField(raw: unknown, p: Problems): Required<HistoryLimitPlan> {
  const resolved: Required<HistoryLimitPlan> = { ...PLAN_DEFAULTS.historyLimit };
  if (raw === undefined) return resolved;
  if (!isRecord(raw)) {
    p.refuse('historyLimit', `must be an object like { bytes: 41943040, events: 40000 }, not ${show(raw)}.`);
    return resolved;
  }
  p.unknownKeys(raw, HISTORY_LIMIT_KEYS, 'historyLimit.');
  const limits = [
    ['bytes', 'bytes', TEMPORAL_LIMITS.historyBytes, 'give bytes of history, e.g. 41943040 (40 MB)'],
    ['events', 'events', TEMPORAL_LIMITS.historyEvents, 'give a number of events, e.g. 40000'],
  ] as const;
  for (const [key, unit, temporal, fix] of limits) {
    const value = p.number(raw, key, 'historyLimit.', 1, fix, true);
    if (value === undefined) continue;
    const most = MAX_HISTORY_LIMIT[key];
    if (value > most) {
      p.refuse(
        `historyLimit.${key}`,
        `is ${value}, over the most a plan may allow, ${most} ${unit}: Temporal terminates a run at ${temporal} ${unit} and the call needs room to stop and report; give at most ${most}.`,
      );
    } else {
      resolved[key] = value;
    }
  }
  return resolved;
}
