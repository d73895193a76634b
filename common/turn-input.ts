import { validatePlan } from '../policy/index.js';
import type { PlanContext, ResolvedPlan } from '../policy/index.js';
import {
  checkOnCutPlan,
  InvalidModelCallInputError,
  messagesOf,
  streamOf,
  validateCallInput,
} from './call-input/call-input.js';
import type { CallInputChecks } from './call-input/call-input.js';
import { utf8Length } from './inline-bytes.js';
import type { AgentTurnInput } from './turn.js';

/** A turn input that cannot be run; the message names the field and the fix. */
export class InvalidAgentTurnInputError extends Error {
  override name = 'InvalidAgentTurnInput';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`\`${field}\`: ${message}`);
  }
}

/**
 * The largest turn, as the JSON size in bytes of its conversation (with tool definitions) or of what it
 * carries across continue-as-new. Temporal refuses payloads over 2 MB, and every model attempt's input carries
 * the whole conversation; the margin leaves room for the rest of the attempt's input.
 */
export const MAX_TURN_PAYLOAD_BYTES = 1_500_000;

/** The default and the largest `maxSteps`. */
export const DEFAULT_MAX_STEPS = 50;
export const MAX_STEPS_LIMIT = 10_000;

const KNOWN_KEYS = new Set([
  'model',
  'system',
  'messages',
  'prompt',
  'tools',
  'settings',
  'providerOptions',
  'headers',
  'retry',
  'deadline',
  'deadlineInMs',
  'reserveMs',
  'maxSteps',
  'carried',
  'stream',
  'budget',
  'tenant',
]);
const TURN_BUDGET_KEYS = ['deadline', 'deadlineInMs', 'reserveMs'] as const;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a turn's input other than its plan (which `turnPlan` checks); throws on the first problem. */
export function validateTurnInput(
  input: unknown,
  checks: CallInputChecks = {},
): asserts input is AgentTurnInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidAgentTurnInputError(
      'input',
      'pass an object such as `{ model: "local:fast", prompt: "Hi", tools: ["calculator"] }`',
    );
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) {
      throw new InvalidAgentTurnInputError(
        key,
        `unknown field; the fields are ${[...KNOWN_KEYS].join(', ')}`,
      );
    }
  }
  const turn = input as AgentTurnInput;
  try {
    validateCallInput(
      {
        model: turn.model,
        ...(turn.system !== undefined ? { system: turn.system } : {}),
        ...(turn.messages !== undefined ? { messages: turn.messages } : {}),
        ...(turn.prompt !== undefined ? { prompt: turn.prompt } : {}),
        ...(turn.stream !== undefined ? { stream: turn.stream } : {}),
        ...(turn.settings !== undefined ? { settings: turn.settings } : {}),
        ...(turn.providerOptions !== undefined ? { providerOptions: turn.providerOptions } : {}),
        ...(turn.headers !== undefined ? { headers: turn.headers } : {}),
        ...(turn.budget !== undefined ? { budget: turn.budget } : {}),
        ...(turn.tenant !== undefined ? { tenant: turn.tenant } : {}),
      },
      checks,
    );
  } catch (error) {
    if (error instanceof InvalidModelCallInputError)
      throw new InvalidAgentTurnInputError(error.field, tail(error));
    throw error;
  }
  if (turn.tools !== undefined) {
    if (!Array.isArray(turn.tools)) {
      const record = typeof turn.tools === 'object' && turn.tools !== null;
      throw new InvalidAgentTurnInputError(
        'tools',
        record
          ? 'a turn\'s tools run in the worker, so it takes their names, e.g. `["calculator"]`, not the AI ' +
              "SDK's record of tools: register each (description, inputSchema and its code as `run`) with " +
              '`createActivities({ tools })` in the worker and name it here'
          : 'give the names of tools in the worker, e.g. `["calculator"]`',
      );
    }
    turn.tools.forEach((name, i) => {
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
        throw new InvalidAgentTurnInputError(
          `tools[${i}]`,
          'a tool name is 1 to 64 letters, digits, `_` or `-`',
        );
      }
    });
    if (new Set(turn.tools).size !== turn.tools.length) {
      throw new InvalidAgentTurnInputError('tools', 'names a tool twice');
    }
  }
  const max = turn.maxSteps;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > MAX_STEPS_LIMIT)) {
    throw new InvalidAgentTurnInputError('maxSteps', `give a whole number from 1 to ${MAX_STEPS_LIMIT}`);
  }
  if (
    turn.retry !== undefined &&
    turn.retry !== false &&
    typeof turn.retry === 'object' &&
    turn.retry !== null
  ) {
    for (const key of TURN_BUDGET_KEYS) {
      if (key in turn.retry) {
        throw new InvalidAgentTurnInputError(
          `retry.${key}`,
          `the deadline and reserve are the turn's: give \`${key}\` at the top of the turn input, not inside \`retry\``,
        );
      }
    }
  }
}

/**
 * The plan every model call of the turn uses: `retry` with the turn's `deadline`/`deadlineInMs` and
 * `reserveMs`, resolved once (an absolute deadline). Without `retry`, one attempt per call. Throws
 * `InvalidRetryPlanError` naming the field.
 */
export function turnPlan(input: AgentTurnInput, ctx: PlanContext): ResolvedPlan {
  const base =
    input.retry === undefined || input.retry === false || input.retry === null
      ? { maxAttempts: 1 }
      : input.retry;
  const plan = validatePlan(
    {
      ...base,
      ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
      ...(input.deadlineInMs !== undefined ? { deadlineInMs: input.deadlineInMs } : {}),
      ...(input.reserveMs !== undefined ? { reserveMs: input.reserveMs } : {}),
    },
    ctx,
  );
  try {
    checkOnCutPlan(streamOf(input), plan.maxAttempts);
  } catch (error) {
    if (error instanceof InvalidModelCallInputError)
      throw new InvalidAgentTurnInputError(error.field, tail(error));
    throw error;
  }
  return plan;
}

/** The conversation a turn starts from: `system`, then `messages`, then `prompt` as a user message. */
export function turnMessages(input: AgentTurnInput): ReturnType<typeof messagesOf> {
  return messagesOf({
    model: input.model,
    ...(input.system !== undefined ? { system: input.system } : {}),
    ...(input.messages !== undefined ? { messages: input.messages } : {}),
    ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
  });
}

/** The size of a value as UTF-8 JSON, in bytes (what Temporal counts against its payload limit). */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}

/** Why a payload of `bytes` is refused, or `undefined` when it fits. */
export function tooLarge(what: string, bytes: number): string | undefined {
  if (bytes <= MAX_TURN_PAYLOAD_BYTES) return undefined;
  const mb = (n: number) => (n / 1_000_000).toFixed(2);
  return (
    `${what} is ${mb(bytes)} MB of JSON, over the turn limit of ${mb(MAX_TURN_PAYLOAD_BYTES)} MB: Temporal ` +
    'refuses payloads over 2 MB and every model attempt carries the whole conversation. Shorten the ' +
    'conversation (or large tool results) and start a new turn with it.'
  );
}

function tail(error: Error): string {
  return error.message.slice(error.message.indexOf(':') + 2);
}
