import type { ModelCallInput } from '../call.js';
import { toWireMessages } from '../messages.js';
import { REQUEST_SPEC, toWire } from '../request.js';
import type { WireMessage, WireRequest, WireTool } from '../request.js';
import { checkHeaders, checkProviderOptions, checkUrlUserinfo } from '../request-secrets.js';
import type { AllowHeaders } from '../request-secrets.js';
import { DEFAULT_STREAM_BATCH_MS, MAX_STREAM_BATCH_MS, MIN_STREAM_BATCH_MS } from '../stream.js';
import type { StreamConfig } from '../stream.js';

import { budgetProblems } from '../../policy/index.js';
import { InvalidModelCallInputError } from '../input-error.js';
import { checkSettings } from './call-settings.js';
import { toolsOf } from './call-tools.js';
import { outputOf } from './call-output.js';
import type { CheckedOutput } from './call-output.js';
import { plainTools } from './call-tools.js';
import { embedRequest } from './call-embed.js';

export { InvalidModelCallInputError } from '../input-error.js';
export { checkSettings, SETTINGS_FIELDS } from './call-settings.js';
export { plainTools, toolsOf } from './call-tools.js';

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

/**
 * Credentials anywhere else in what the call sends (headers are checked apart, with the worker's `allowHeaders`;
 * file URLs as they convert): in the provider options of the call, of each message, part and tool, and in a
 * provider-defined tool's arguments; a URL with a user name or password in a header's value; and in the text the
 * caller wrote (system, prompt, user messages) a URL with a password. An assistant's or a tool's text is not held
 * to it: the model or a tool wrote it, and refusing it would end every later step of a conversation.
 */
function checkRequestSecrets(call: ModelCallInput, tools: WireTool[] | undefined): void {
  checkUrlUserinfo(call.headers, 'headers');
  checkUrlUserinfo(call.system, 'system', 'text');
  checkUrlUserinfo(call.prompt, 'prompt', 'text');
  (tools ?? []).forEach((tool, i) => {
    if (tool.type === 'provider') checkProviderOptions(tool.args, `tools[${i}].args`);
    else {
      checkProviderOptions(tool.providerOptions, `tools[${i}].providerOptions`);
      checkUrlUserinfo(tool.description, `tools[${i}].description`, 'text');
    }
  });
  (call.messages ?? []).forEach((m, i) => {
    const message = m as { role?: unknown; content?: unknown; providerOptions?: unknown };
    const at = `messages[${i}]`;
    checkProviderOptions(message.providerOptions, `${at}.providerOptions`);
    const written = message.role === 'system' || message.role === 'user';
    if (written && typeof message.content === 'string')
      checkUrlUserinfo(message.content, `${at}.content`, 'text');
    if (!Array.isArray(message.content)) return;
    message.content.forEach((p, j) => {
      const part = (typeof p === 'object' && p !== null ? p : {}) as {
        type?: unknown;
        text?: unknown;
        providerOptions?: unknown;
      };
      checkProviderOptions(part.providerOptions, `${at}.content[${j}].providerOptions`);
      if (written && part.type === 'text') checkUrlUserinfo(part.text, `${at}.content[${j}].text`, 'text');
    });
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tool choice, checked: `auto`, `none`, `required`, or `{ type: 'tool', toolName }` naming a given tool. */
function toolChoiceOf(choice: unknown, tools: WireTool[] | undefined): WireRequest['toolChoice'] {
  if (choice === undefined) return undefined;
  const type = isObject(choice) ? choice.type : undefined;
  if (type === 'auto' || type === 'none' || type === 'required') return { type };
  if (type === 'tool' && isObject(choice)) {
    const name = choice.toolName;
    if (typeof name !== 'string' || !(tools ?? []).some((t) => t.name === name)) {
      throw new InvalidModelCallInputError(
        'toolChoice.toolName',
        `must name one of the call's tools (${(tools ?? []).map((t) => t.name).join(', ') || 'none given'})`,
      );
    }
    return { type: 'tool', toolName: name };
  }
  throw new InvalidModelCallInputError(
    'toolChoice',
    "must be `{ type: 'auto' | 'none' | 'required' }` or `{ type: 'tool', toolName }`",
  );
}

/** A JSON answer without a schema; a schema is the call's `output` (validated, repaired). */
function responseFormatOf(format: unknown, hasOutput: boolean): WireRequest['responseFormat'] {
  if (format === undefined) return undefined;
  if (!isObject(format) || (format.type !== 'text' && format.type !== 'json'))
    throw new InvalidModelCallInputError(
      'responseFormat',
      "must be `{ type: 'text' }` or `{ type: 'json' }`",
    );
  if (format.type === 'json' && format.schema !== undefined)
    throw new InvalidModelCallInputError(
      'responseFormat.schema',
      'give the schema as `output: { schema }`: model-retry validates the answer against it and repairs it',
    );
  if (format.type === 'json' && hasOutput)
    throw new InvalidModelCallInputError('responseFormat', 'not with `output`, which asks for JSON itself');
  return format as WireRequest['responseFormat'];
}

/** Refuses a `budget` with unknown keys or amounts that are negative, non-finite or (tokens) fractional. */
export function checkBudget(budget: unknown, at = 'budget'): void {
  const problem = budgetProblems(budget, at)[0];
  if (problem) throw new InvalidModelCallInputError(problem.field, problem.message);
}

/** A non-system message with something in it (a text that is not blank, a file, a tool call): a conversation needs one. */
function saysSomething(m: WireMessage): boolean {
  if (m.role === 'system') return false;
  return m.content.some((part) => part.type !== 'text' || part.text.trim() !== '');
}

/**
 * How a call streams, checked: `undefined` when it does not, else its batch interval and what a cut does. `stream`
 * is a boolean or `{ batchMs, onCut }` with `batchMs` a whole number of milliseconds in [10, 60000] and `onCut`
 * `'stop'` (the default) or `'continue'`.
 */
export function streamOf(input: Pick<ModelCallInput, 'stream'>): StreamConfig | undefined {
  const stream = input.stream;
  if (stream === undefined || stream === false) return undefined;
  if (stream === true) return { batchMs: DEFAULT_STREAM_BATCH_MS };
  if (typeof stream !== 'object' || stream === null || Array.isArray(stream)) {
    throw new InvalidModelCallInputError('stream', 'must be `true`, `false` or `{ batchMs, onCut }`');
  }
  for (const key of Object.keys(stream)) {
    if (key !== 'batchMs' && key !== 'onCut') {
      throw new InvalidModelCallInputError(
        `stream.${key}`,
        'unknown field; the fields are `batchMs` and `onCut`',
      );
    }
  }
  const onCut = 'onCut' in stream ? stream.onCut : 'stop';
  if (onCut !== 'stop' && onCut !== 'continue') {
    throw new InvalidModelCallInputError(
      'stream.onCut',
      `must be 'stop' (a cut stream stops the call) or 'continue' (the next attempt continues its text); got ${JSON.stringify(onCut)}`,
    );
  }
  const batchMs = stream.batchMs ?? DEFAULT_STREAM_BATCH_MS;
  if (!Number.isInteger(batchMs) || batchMs < MIN_STREAM_BATCH_MS || batchMs > MAX_STREAM_BATCH_MS) {
    throw new InvalidModelCallInputError(
      'stream.batchMs',
      `must be a whole number of milliseconds from ${MIN_STREAM_BATCH_MS} to ${MAX_STREAM_BATCH_MS} (got ${String(batchMs)})`,
    );
  }
  return onCut === 'continue' ? { batchMs, onCut } : { batchMs };
}

/**
 * `onCut: 'continue'` needs a plan of more than one attempt: the next attempt continues the cut text, and with one
 * attempt a cut would stop the call as `'stop'` does (less clearly). Checked with the call's resolved plan.
 */
export function checkOnCutPlan(stream: StreamConfig | undefined, maxAttempts: number): void {
  if (stream?.onCut !== 'continue' || maxAttempts > 1) return;
  throw new InvalidModelCallInputError(
    'stream.onCut',
    "`'continue'` needs a retry plan of more than one attempt (`retry`, such as `{ waits: [1000] }`): the next " +
      'attempt continues the cut text',
  );
}
