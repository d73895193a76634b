import type { ModelCallInput } from '../call.js';
import { toWireMessages } from '../messages.js';
import { REQUEST_SPEC, toWire } from '../request.js';
import type { WireMessage, WireRequest } from '../request.js';
import { checkHeaders, checkProviderOptions } from '../request-secrets.js';
import type { AllowHeaders } from '../request-secrets.js';
import type { StreamConfig } from '../stream.js';

import { InvalidModelCallInputError } from '../input-error.js';
import { checkSettings } from './call-settings.js';
import { toolsOf } from './call-tools.js';
import { outputOf } from './call-output.js';
import type { CheckedOutput } from './call-output.js';
import { plainTools } from './call-tools.js';
import { embedRequest } from './call-embed.js';
import { checkBudget, isObject, responseFormatOf, toolChoiceOf } from './call-fields.js';
import { streamOf } from './stream-input.js';
import { checkTenant } from './tenant.js';
import { checkRequestSecrets } from './written-secrets.js';

export { InvalidModelCallInputError } from '../input-error.js';
export { checkSettings, SETTINGS_FIELDS } from './call-settings.js';
export { plainTools, toolsOf } from './call-tools.js';
export { checkBudget } from './call-fields.js';
export { checkOnCutPlan, streamOf } from './stream-input.js';
export { checkTenant, MAX_TENANT_BYTES, tenantProblem } from './tenant.js';

/**
 * The call input as it crosses into Temporal: tools as plain JSON (the AI SDK's record shape converted), messages
 * in wire form (bytes as base64, URLs as strings), provider options and headers JSON-safe. Checked first.
 */
export function plainInput(input: ModelCallInput): ModelCallInput {
  const withTools = plainTools(input);
  const out: ModelCallInput = { ...withTools };
  if (input.messages !== undefined) out.messages = toWireMessages(input.messages);
  if (input.providerOptions !== undefined) out.providerOptions = toWire(input.providerOptions);
  return out;
}
export { outputOf } from './call-output.js';

const MODEL_NAME = /^[A-Za-z0-9_.-]+:\S+$/;
const KNOWN_KEYS = new Set([
  'model',
  'prompt',
  'system',
  'messages',
  'tools',
  'toolChoice',
  'settings',
  'providerOptions',
  'headers',
  'responseFormat',
  'retry',
  'stream',
  'output',
  'budget',
  'embed',
  'tenant',
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

/**
 * The conversation a call sends, in wire form: `system`, then `messages` (the AI SDK's `ModelMessage`s or the plain
 * shape, converted), then `prompt` as a user message.
 */
export function messagesOf(input: ModelCallInput): WireMessage[] {
  const out: WireMessage[] = [];
  if (input.system !== undefined) out.push({ role: 'system', content: input.system });
  if (input.messages !== undefined) out.push(...toWireMessages(input.messages));
  if (input.prompt !== undefined) out.push({ role: 'user', content: [{ type: 'text', text: input.prompt }] });
  return out;
}

/** How a call's input is checked. */
export interface CallInputChecks {
  /**
   * Credential headers let through by name (lower case), as the worker's `allowHeaders` says; `'any'` leaves the
   * credential check of headers for later (the workflow makes it once it knows its worker's list). @default []
   */
  allowHeaders?: AllowHeaders;
}

/** Checks a call's input other than its retry plan (which `validatePlan` checks); throws on the first problem. */
export function validateCallInput(
  input: unknown,
  checks: CallInputChecks = {},
): asserts input is ModelCallInput {
  checkCallInput(input, checks);
}

/** What `checkCallInput` found in a call's input, each part as the call uses it. */
export interface CheckedCallInput {
  backends: string[];
  /** What every attempt sends: the conversation, tools, settings and options in wire form. */
  request: WireRequest;
  stream: StreamConfig | undefined;
  output: CheckedOutput | undefined;
}

/**
 * `validateCallInput`, returning the parts it checked (`backendsOf`, `messagesOf`, `toolsOf`, `streamOf`,
 * `outputOf`), so that a call computes each once (a turn's calls are checked at every step).
 */
export function checkCallInput(input: unknown, checks: CallInputChecks = {}): CheckedCallInput {
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
  checkTenant(call.tenant);
  if (call.embed !== undefined) {
    const request = embedRequest(call, backends, checks.allowHeaders);
    return { backends, request, stream: undefined, output: undefined };
  }
  const stream = streamOf(call);
  const output = outputOf(call);
  const tools = toolsOf(call.tools);
  checkSettings(call.settings);
  checkBudget(call.budget);
  checkHeaders(call.headers, checks.allowHeaders);
  checkProviderOptions(call.providerOptions);
  if (call.providerOptions !== undefined && !isObject(call.providerOptions))
    throw new InvalidModelCallInputError(
      'providerOptions',
      'must be an object keyed by provider (`{ openai: { ... } }`)',
    );
  const toolChoice = toolChoiceOf(call.toolChoice, tools);
  const responseFormat = responseFormatOf(call.responseFormat, output !== undefined);
  if (call.prompt !== undefined && typeof call.prompt !== 'string') {
    throw new InvalidModelCallInputError('prompt', 'must be a string');
  }
  if (call.system !== undefined && typeof call.system !== 'string') {
    throw new InvalidModelCallInputError('system', 'must be a string');
  }
  if (call.messages !== undefined && !Array.isArray(call.messages)) {
    throw new InvalidModelCallInputError('messages', 'must be an array of `{ role, content }` messages');
  }
  const messages = messagesOf(call);
  checkRequestSecrets(call, tools);
  if (!messages.some(saysSomething)) {
    const blank = call.prompt !== undefined && call.prompt.trim() === '';
    throw new InvalidModelCallInputError(
      'prompt',
      blank
        ? 'is empty: give the text to send'
        : 'give a `prompt` or at least one non-system message in `messages`',
    );
  }
  const request: WireRequest = {
    spec: REQUEST_SPEC,
    prompt: messages,
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(call.settings ?? {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(call.providerOptions !== undefined ? { providerOptions: call.providerOptions } : {}),
    ...(call.headers !== undefined && Object.keys(call.headers).length > 0 ? { headers: call.headers } : {}),
  };
  return { backends, request, stream, output };
}

/** A non-system message with something in it (a text that is not blank, a file, a tool call): a conversation needs one. */
function saysSomething(m: WireMessage): boolean {
  if (m.role === 'system') return false;
  return m.content.some((part) => part.type !== 'text' || part.text.trim() !== '');
}
