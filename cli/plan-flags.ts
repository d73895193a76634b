import type { BackoffPlan, InvalidRetryPlanError, PlanProblem, RetryPlan } from '../policy/index.js';
import { UsageError } from './args.js';

/** The `call` flags that make up a retry plan, as `parseArgs` gives them. */
export interface PlanFlagValues {
  waits?: string | undefined;
  backoff?: string | undefined;
  'no-retry'?: boolean | undefined;
  'max-attempts'?: string | undefined;
  deadline?: string | undefined;
  reserve?: string | undefined;
  'attempt-timeout'?: string | undefined;
  'min-attempt'?: string | undefined;
}

/** `parseArgs` options of the plan flags. */
export const PLAN_FLAG_OPTIONS = {
  waits: { type: 'string' },
  backoff: { type: 'string' },
  'no-retry': { type: 'boolean' },
  'max-attempts': { type: 'string' },
  deadline: { type: 'string' },
  reserve: { type: 'string' },
  'attempt-timeout': { type: 'string' },
  'min-attempt': { type: 'string' },
} as const;

/** Plan fields that one number flag sets, in ms unless said otherwise. */
const NUMBER_FLAGS = {
  'max-attempts': 'maxAttempts',
  deadline: 'deadlineInMs',
  reserve: 'reserveMs',
  'attempt-timeout': 'attemptTimeoutMs',
  'min-attempt': 'minAttemptMs',
} as const satisfies Record<string, keyof RetryPlan>;

/** The flag that sets each plan field (the CLI has no flag for the others). */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  waits: '--waits',
  backoff: '--backoff',
  maxAttempts: '--max-attempts',
  deadline: '--deadline',
  deadlineInMs: '--deadline',
  reserveMs: '--reserve',
  attemptTimeoutMs: '--attempt-timeout',
  minAttemptMs: '--min-attempt',
  retry: '--waits/--backoff',
};

const BACKOFF_KEYS: readonly (keyof BackoffPlan)[] = ['initialMs', 'factor', 'maxMs', 'jitterMs'];
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * Builds the call's retry plan from its flags. The syntax is checked here (numbers, lists, `key=value`
 * pairs); the values are checked by `validatePlan`, whose refusals {@link planRefusal} words in flags.
 *
 * - `--waits 10,30`: the waits in ms, comma separated.
 * - `--backoff initialMs=1000,factor=2,maxMs=30000,jitterMs=500`: any of the four keys (the others keep their
 *   defaults); `--backoff default` for the default backoff.
 * - `--no-retry`: exactly one attempt, said explicitly (silences the hint); not with any other plan flag.
 * - `--max-attempts N`, `--deadline MS` (from the workflow's start), `--reserve MS`, `--attempt-timeout MS`,
 *   `--min-attempt MS`. Any plan flag turns retry on; without `--waits`/`--backoff` the default backoff is used.
 * Returns `undefined` when no plan flag was given (one attempt; the CLI prints a hint), `false` for `--no-retry`.
 * @throws UsageError naming the flag and the fix.
 */
export function planFromFlags(values: PlanFlagValues): RetryPlan | false | undefined {
  const given = (Object.keys(PLAN_FLAG_OPTIONS) as (keyof PlanFlagValues)[]).filter(
    (flag) => values[flag] !== undefined && values[flag] !== false,
  );
  if (values['no-retry']) {
    const others = given.filter((flag) => flag !== 'no-retry');
    if (others.length > 0) {
      throw new UsageError(
        `\`--no-retry\` cannot be given with ${others.map((f) => `\`--${f}\``).join(', ')}: ` +
          'drop `--no-retry` to retry by those flags, or drop them for exactly one attempt ' +
          '(to bound that attempt, use `--max-attempts 1 --attempt-timeout MS`).',
      );
    }
    return false;
  }
  if (given.length === 0) return undefined;
  const plan: RetryPlan = {};
  if (values.waits !== undefined) plan.waits = parseWaits(values.waits);
  if (values.backoff !== undefined) plan.backoff = parseBackoff(values.backoff);
  for (const [flag, field] of Object.entries(NUMBER_FLAGS) as [keyof typeof NUMBER_FLAGS, string][]) {
    const raw = values[flag];
    if (raw !== undefined) (plan as Record<string, number>)[field] = parseNumber(`--${flag}`, raw);
  }
  return plan;
}

function parseNumber(flag: string, raw: string): number {
  const text = raw.trim().replaceAll('_', '');
  if (!NUMBER.test(text)) {
    throw new UsageError(
      `\`${flag}\` must be a number of milliseconds (like 30000), not ${JSON.stringify(raw)}.`,
    );
  }
  return Number(text);
}

function parseWaits(raw: string): number[] {
  if (raw.trim() === '') {
    throw new UsageError(
      '`--waits` is empty: give the waits in ms, comma separated (e.g. `--waits 1000,5000`), or use `--backoff default`.',
    );
  }
  return raw.split(',').map((part, i) => {
    const text = part.trim().replaceAll('_', '');
    if (!NUMBER.test(text)) {
      throw new UsageError(
        `\`--waits\` item ${i + 1} is ${JSON.stringify(part)}: give the waits in ms, comma separated, e.g. \`--waits 1000,5000\`.`,
      );
    }
    return Number(text);
  });
}

function parseBackoff(raw: string): BackoffPlan {
  const text = raw.trim();
  if (text === 'default' || text === '') return {};
  const backoff: BackoffPlan = {};
  for (const pair of text.split(',')) {
    const [key = '', value, ...rest] = pair.split('=').map((s) => s.trim());
    if (value === undefined || rest.length > 0 || key === '') {
      throw new UsageError(
        `\`--backoff\` takes key=value pairs, comma separated (${BACKOFF_KEYS.join(', ')}), e.g. ` +
          `\`--backoff initialMs=1000,factor=2,maxMs=30000,jitterMs=500\`, or \`--backoff default\`; got ${JSON.stringify(pair)}.`,
      );
    }
    const known = BACKOFF_KEYS.find((k) => k.toLowerCase() === key.toLowerCase());
    if (known === undefined) {
      throw new UsageError(
        `\`--backoff\` has no key ${JSON.stringify(key)}: the keys are ${BACKOFF_KEYS.join(', ')}.`,
      );
    }
    backoff[known] = parseNumber(`--backoff ${known}=`, value);
  }
  return backoff;
}

/**
 * The CLI's wording of a plan refusal: every problem with its plan field replaced by the flag that sets it
 * (`reserveMs` -> `--reserve`, `backoff.maxMs` -> `--backoff maxMs=`), keeping the fix.
 */
export function planRefusal(error: InvalidRetryPlanError): string {
  const lines = error.problems.map((p) => wordProblem(p));
  return lines.length === 1
    ? (lines[0] as string)
    : `${lines.length} problems with the retry flags:\n- ${lines.join('\n- ')}`;
}

/** The flag that sets a plan field (`waits[2]` -> `--waits`, `backoff.factor` -> `--backoff factor=`). */
export function flagOfField(field: string): string {
  const backoffKey = /^backoff\.(\w+)$/.exec(field)?.[1];
  if (backoffKey !== undefined) return `--backoff ${backoffKey}=`;
  const base = field.replace(/[.[].*$/, '');
  return FLAG_OF_FIELD[base] ?? field;
}

function wordProblem(problem: PlanProblem): string {
  return problem.message
    .replace(/^RetryPlan /, '')
    .replace(/`waits\[(\d+)\]`/g, (_whole, i: string) => `\`--waits\` item ${Number(i) + 1}`)
    .replace(/`([A-Za-z]+(?:\.[A-Za-z]+|\[\d+\])?)`/g, (whole, field: string) => {
      const flag = flagOfField(field);
      return flag === field ? whole : `\`${flag}\``;
    });
}
