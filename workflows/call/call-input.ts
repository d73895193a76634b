import type { ChatMessage, ToolDefinition } from '../../common/attempt.js';
import type { ModelCallInput } from '../../common/call.js';
import { DEFAULT_STREAM_BATCH_MS, MAX_STREAM_BATCH_MS, MIN_STREAM_BATCH_MS } from '../../common/stream.js';

import { budgetProblems } from '../../policy/index.js';
import { InvalidModelCallInputError } from './input-error.js';
import { checkSettings } from './call-settings.js';
import { toolsOf } from './call-tools.js';
import { outputOf } from './call-output.js';
import type { CheckedOutput } from './call-output.js';

export { InvalidModelCallInputError } from './input-error.js';
export { checkSettings, SETTINGS_FIELDS } from './call-settings.js';
export { plainTools, toolsOf } from './call-tools.js';
export { outputOf } from './call-output.js';

const MODEL_NAME = /^[A-Za-z0-9_.-]+:\S+$/;
const KNOWN_KEYS = new Set([
  'model',
  'prompt',
  'system',
  'messages',
  'tools',
  'settings',
  'retry',
  'stream',
  'output',
  'budget',
]);

/** The backend chain of a call, checked: one or more `provider:model` names. */
export function backendsOf(input: ModelCallInput): string[] {
  const models = typeof input.model === 'string' ? [input.model] : input.model;
  if (!Array.isArray(models) || models.length === 0) {
    throw new InvalidModelCallInputError(
      'model',
      'give at least one model as `provider:model`, e.g. `openai:gpt-4o-mini`',
    );
  }
  models.forEach((m, i) => {
    if (typeof m !== 'string' || !MODEL_NAME.test(m)) {
      throw new InvalidModelCallInputError(
        Array.isArray(input.model) ? `model[${i}]` : 'model',
        `"${String(m)}" is not a model name; write it as \`provider:model\`, e.g. \`local:fast\``,
      );
    }
  });
  return models;
}

/** The conversation a call sends: `system`, then `messages`, then `prompt` as a user message. */
export function messagesOf(input: ModelCallInput): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (input.system !== undefined) out.push({ role: 'system', content: input.system });
  out.push(...(input.messages ?? []));
  if (input.prompt !== undefined) out.push({ role: 'user', content: input.prompt });
  return out;
}

/** Checks a call's input other than its retry plan (which `validatePlan` checks); throws on the first problem. */
export function validateCallInput(input: unknown): asserts input is ModelCallInput {
  checkCallInput(input);
}

/** What `checkCallInput` found in a call's input, each part as the call uses it. */
export interface CheckedCallInput {
  backends: string[];
  messages: ChatMessage[];
  tools: ToolDefinition[] | undefined;
  stream: { batchMs: number } | undefined;
  output: CheckedOutput | undefined;
}

/**
 * `validateCallInput`, returning the parts it checked (`backendsOf`, `messagesOf`, `toolsOf`, `streamOf`,
 * `outputOf`), so that a call computes each once (issue 22: a turn's calls are checked at every step).
 */
export function checkCallInput(input: unknown): CheckedCallInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidModelCallInputError(
      'input',
      'pass an object such as `{ model: "local:fast", prompt: "Hi" }`',
    );
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) {
      throw new InvalidModelCallInputError(
        key,
        `unknown field; the fields are ${[...KNOWN_KEYS].join(', ')}`,
      );
    }
  }
  const call = input as ModelCallInput;
  const backends = backendsOf(call);
  const stream = streamOf(call);
  const output = outputOf(call);
  const tools = toolsOf(call.tools);
  checkSettings(call.settings);
  checkBudget(call.budget);
  if (call.prompt !== undefined && typeof call.prompt !== 'string') {
    throw new InvalidModelCallInputError('prompt', 'must be a string');
  }
  if (call.system !== undefined && typeof call.system !== 'string') {
    throw new InvalidModelCallInputError('system', 'must be a string');
  }
  if (call.messages !== undefined && !Array.isArray(call.messages)) {
    throw new InvalidModelCallInputError('messages', 'must be an array of `{ role, content }` messages');
  }
  (call.messages ?? []).forEach((m, i) => {
    const role = (m as { role?: unknown } | null)?.role;
    if (!['system', 'user', 'assistant', 'tool'].includes(role as string)) {
      throw new InvalidModelCallInputError(
        `messages[${i}].role`,
        'must be one of system, user, assistant, tool',
      );
    }
    if (typeof (m as { content?: unknown }).content !== 'string') {
      throw new InvalidModelCallInputError(`messages[${i}].content`, 'must be a string');
    }
  });
  const messages = messagesOf(call);
  if (!messages.some(saysSomething)) {
    const blank = call.prompt !== undefined && call.prompt.trim() === '';
    throw new InvalidModelCallInputError(
      'prompt',
      blank
        ? 'is empty: give the text to send'
        : 'give a `prompt` or at least one non-system message in `messages`',
    );
  }
  return { backends, messages, tools, stream, output };
}

/** Refuses a `budget` with unknown keys or amounts that are negative, non-finite or (tokens) fractional. */
export function checkBudget(budget: unknown, at = 'budget'): void {
  const problem = budgetProblems(budget, at)[0];
  if (problem) throw new InvalidModelCallInputError(problem.field, problem.message);
}

/** A non-system message with text (or an assistant's tool calls): a conversation needs one. */
function saysSomething(m: ChatMessage): boolean {
  if (m.role === 'system') return false;
  return m.content.trim() !== '' || (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0);
}

/**
 * How a call streams, checked: `undefined` when it does not, else its batch interval. `stream` is a boolean or
 * `{ batchMs }` with `batchMs` a whole number of milliseconds in [10, 60000].
 */
export function streamOf(input: Pick<ModelCallInput, 'stream'>): { batchMs: number } | undefined {
  const stream = input.stream;
  if (stream === undefined || stream === false) return undefined;
  if (stream === true) return { batchMs: DEFAULT_STREAM_BATCH_MS };
  if (typeof stream !== 'object' || stream === null || Array.isArray(stream)) {
    throw new InvalidModelCallInputError('stream', 'must be `true`, `false` or `{ batchMs }`');
  }
  for (const key of Object.keys(stream)) {
    if (key !== 'batchMs') {
      throw new InvalidModelCallInputError(`stream.${key}`, 'unknown field; the only field is `batchMs`');
    }
  }
  const batchMs = stream.batchMs ?? DEFAULT_STREAM_BATCH_MS;
  if (!Number.isInteger(batchMs) || batchMs < MIN_STREAM_BATCH_MS || batchMs > MAX_STREAM_BATCH_MS) {
    throw new InvalidModelCallInputError(
      'stream.batchMs',
      `must be a whole number of milliseconds from ${MIN_STREAM_BATCH_MS} to ${MAX_STREAM_BATCH_MS} (got ${String(batchMs)})`,
    );
  }
  return { batchMs };
}
