import type { ChatMessage } from '../activities/model-request-types.js';
import type { ModelCallInput } from './call-types.js';

/** A model call input that cannot be run; the message names the field and the fix. */
export class InvalidModelCallInputError extends Error {
  override name = 'InvalidModelCallInput';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`\`${field}\`: ${message}`);
  }
}

const MODEL_NAME = /^[A-Za-z0-9_.-]+:\S+$/;
const KNOWN_KEYS = new Set(['model', 'prompt', 'system', 'messages', 'tools', 'settings', 'retry']);

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
  backendsOf(call);
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
  if (messagesOf(call).every((m) => m.role === 'system')) {
    throw new InvalidModelCallInputError(
      'prompt',
      'give a `prompt` or at least one non-system message in `messages`',
    );
  }
}
