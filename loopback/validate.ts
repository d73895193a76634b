import { CONTINUE_MODES, MALFORMED_SHAPES } from './steps.js';
import type { Step, StepKind } from './steps.js';

/** Thrown for a script that cannot be served; the message names the field (`steps[2].status`). */
export class InvalidScriptError extends Error {
  override readonly name = 'InvalidScriptError';
}

type Check = (value: unknown) => string | undefined;

const nonNegative: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? undefined : 'must be a finite number >= 0';
const count: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 0 ? undefined : 'must be an integer >= 0';
const status: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599
    ? undefined
    : 'must be an integer 100-599';
const string: Check = (v) => (typeof v === 'string' ? undefined : 'must be a string');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const anything: Check = () => undefined;
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    values.includes(v as string) ? undefined : `must be one of ${values.join(', ')}`;
const stringRecord: Check = (v) =>
  isRecord(v) && Object.values(v).every((x) => typeof x === 'string')
    ? undefined
    : 'must be an object of strings';
const stringArray: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'must be an array of strings';
const fraction: Check = (v) =>
  typeof v === 'number' && v > 0 && v < 1 ? undefined : 'must be a number in (0, 1)';
const shape: Check = (v) =>
  (MALFORMED_SHAPES as readonly unknown[]).includes(v)
    ? undefined
    : `must be one of ${MALFORMED_SHAPES.join(', ')}`;
const usage: Check = (v) =>
  isRecord(v) &&
  Object.keys(v).every((k) => k === 'inputTokens' || k === 'outputTokens' || k === 'reasoningTokens') &&
  Object.values(v).every((x) => count(x) === undefined)
    ? undefined
    : 'must be { inputTokens?, outputTokens?, reasoningTokens? } of integers >= 0';
const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const REASONING_KEYS = ['text', 'signature', 'redactedData', 'id'];
const reasoningBlock = (r: unknown): boolean =>
  isRecord(r) &&
  Object.keys(r).every((k) => REASONING_KEYS.includes(k)) &&
  REASONING_KEYS.every((k) => optionalString(r[k]));
const reasoning: Check = (v) =>
  (Array.isArray(v) ? v.every(reasoningBlock) : reasoningBlock(v))
    ? undefined
    : 'must be { text?, signature?, redactedData?, id? } of strings, or an array of them';
const toolCalls: Check = (v) =>
  Array.isArray(v) &&
  v.every(
    (c) =>
      isRecord(c) &&
      typeof c.name === 'string' &&
      (c.id === undefined || typeof c.id === 'string') &&
      optionalString(c.signature) &&
      (c.arguments === undefined || typeof c.arguments === 'string' || isRecord(c.arguments)),
  )
    ? undefined
    : 'must be an array of { name, id?, arguments?, signature? }';

const continues: Check = (v) => {
  const form = 'must be { text, mode?, repeatChars? }';
  if (!isRecord(v) || typeof v.text !== 'string') return `${form} with a string text`;
  const unknown = Object.keys(v).find((k) => !['text', 'mode', 'repeatChars'].includes(k));
  if (unknown !== undefined) return `${form} (${unknown} is not one of its fields)`;
  const mode = v.mode ?? 'exact';
  if (!(CONTINUE_MODES as readonly unknown[]).includes(mode)) {
    return `.mode must be one of ${CONTINUE_MODES.join(', ')}`;
  }
  if (v.repeatChars === undefined) return undefined;
  const n = v.repeatChars;
  if (mode === 'repeat-little') {
    return Number.isInteger(n) && (n as number) >= 1 && (n as number) < 20
      ? undefined
      : '.repeatChars must be an integer 1-19 for repeat-little (repeat-lot repeats 20 or more)';
  }
  if (mode === 'repeat-lot') {
    return Number.isInteger(n) && (n as number) >= 20
      ? undefined
      : '.repeatChars must be an integer >= 20 for repeat-lot (repeat-little repeats fewer)';
  }
  return `.repeatChars applies only to the modes repeat-little and repeat-lot (mode is ${String(mode)})`;
};

const common: Record<string, Check> = {
  kind: anything,
  delayMs: nonNegative,
  repeat: boolean,
  headers: stringRecord,
};

const fields: Record<StepKind, Record<string, Check>> = {
  ok: {
    text: string,
    chunks: stringArray,
    toolCalls,
    reasoning,
    finishReason: string,
    usage,
    chunkDelayMs: nonNegative,
    cutAfterChunks: count,
    cutPauseMs: nonNegative,
    endAfterChunks: count,
    blockReason: string,
    continues,
  },
  error: { status, type: string, code: string, message: string, body: anything, retryDelay: string },
  'echo-auth': { status, everywhere: boolean },
  malformed: { shape, body: string, contentType: string },
  drop: {},
  cut: { fraction, text: string },
  hang: {},
  'stream-error': {
    type: string,
    code: string,
    message: string,
    afterChunks: count,
    text: string,
    event: oneOf(['error', 'response.failed']),
  },
};

/**
 * Checks plain JSON steps (from a file or the control endpoint) and returns them typed.
 * @throws InvalidScriptError naming the first bad field.
 */
export function parseSteps(value: unknown, where = 'steps'): Step[] {
  if (!Array.isArray(value)) throw new InvalidScriptError(`${where} must be an array of steps`);
  const steps = value.map((item, i) => parseStep(item, `${where}[${i}]`));
  const repeatAt = steps.findIndex((s) => s.repeat === true);
  if (repeatAt !== -1 && repeatAt < steps.length - 1) {
    throw new InvalidScriptError(
      `${where}[${repeatAt}] repeats forever, so the steps after it would never run`,
    );
  }
  return steps;
}

/** Checks one plain JSON step. @throws InvalidScriptError naming the first bad field. */
export function parseStep(value: unknown, where = 'step'): Step {
  if (!isRecord(value)) throw new InvalidScriptError(`${where} must be an object with a \`kind\``);
  const kind = value.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(fields, kind)) {
    const kinds = Object.keys(fields).join(', ');
    throw new InvalidScriptError(`${where}.kind must be one of ${kinds} (got ${JSON.stringify(kind)})`);
  }
  const allowed = { ...common, ...fields[kind as StepKind] };
  for (const [key, field] of Object.entries(value)) {
    const check = allowed[key];
    if (check === undefined)
      throw new InvalidScriptError(`${where}.${key} is not a field of a '${kind}' step`);
    const problem = field === undefined ? undefined : check(field);
    if (problem !== undefined) {
      // A problem with a field inside this one names it (`.mode ...`).
      throw new InvalidScriptError(`${where}.${key}${problem.startsWith('.') ? '' : ' '}${problem}`);
    }
  }
  if (kind === 'error' && value.status === undefined) {
    throw new InvalidScriptError(`${where}.status is required for an 'error' step`);
  }
  if (
    kind === 'ok' &&
    value.continues !== undefined &&
    (value.text !== undefined || value.chunks !== undefined)
  ) {
    const field = value.text !== undefined ? 'text' : 'chunks';
    throw new InvalidScriptError(
      `${where}.${field} cannot be given with continues (continues.text is the answer)`,
    );
  }
  if (kind === 'stream-error' && value.type === undefined) {
    throw new InvalidScriptError(`${where}.type is required for a 'stream-error' step`);
  }
  return value as unknown as Step;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
