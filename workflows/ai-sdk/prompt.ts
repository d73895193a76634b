/**
 * The AI SDK's request to a model (`LanguageModelV4CallOptions`) as a model call's input, whole: the prompt in
 * wire form (the specification's own messages, bytes as base64 and URLs as strings; system messages stay
 * messages), function and provider-defined tools, the tool choice, every generation setting, provider options,
 * request headers and the response format. A JSON answer with a schema is the call's structured output (`output`,
 * validated and repaired by model-retry); one without a schema is the call's `responseFormat`. Nothing is dropped
 * and nothing is refused here: the call's own input check (`checkCallInput`) refuses what no call may carry
 * (credentials in headers or provider options, URLs with userinfo), naming the field.
 */
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { ModelSettings } from '../../common/attempt.js';
import type { ModelCallInput } from '../../common/call.js';
import { SETTING_KEYS, toWire } from '../../common/request.js';
import type { WireMessage, WireRequest, WireTool, WireToolChoice } from '../../common/request.js';

/** What one AI SDK request becomes in a call's input. */
export interface ConvertedRequest {
  /** The prompt in wire form, system messages included. */
  messages: WireMessage[];
  tools?: WireTool[];
  toolChoice?: WireToolChoice;
  settings?: ModelSettings;
  providerOptions?: WireRequest['providerOptions'];
  headers?: Record<string, string>;
  /** A JSON answer without a schema (`{ type: 'json' }`). */
  responseFormat?: ModelCallInput['responseFormat'];
  /** A JSON answer with a schema (`generateObject`, `Output.object`): the structured-output field of the call. */
  output?: { schema: Record<string, unknown> };
}

/** Converts one request (nothing is checked here: `checkCallInput` checks the call's input). */
export function convertRequest(options: LanguageModelV4CallOptions): ConvertedRequest {
  const out: ConvertedRequest = { messages: toWire(options.prompt) };
  if (options.tools !== undefined && options.tools.length > 0) out.tools = toWire(options.tools);
  if (options.toolChoice !== undefined) out.toolChoice = toWire(options.toolChoice);
  const settings = settingsOf(options);
  if (settings !== undefined) out.settings = settings;
  if (options.providerOptions !== undefined && Object.keys(options.providerOptions).length > 0)
    out.providerOptions = toWire(options.providerOptions);
  const headers = headersOf(options.headers);
  if (headers !== undefined) out.headers = headers;
  const format = options.responseFormat;
  if (format?.type === 'json') {
    if (format.schema !== undefined)
      out.output = { schema: toWire(format.schema) as Record<string, unknown> };
    else out.responseFormat = toWire(format);
  }
  return out;
}

/** Every generation setting the AI SDK set, as it named it. */
function settingsOf(options: LanguageModelV4CallOptions): ModelSettings | undefined {
  const s: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = options[key];
    if (value !== undefined) s[key] = toWire(value);
  }
  return Object.keys(s).length > 0 ? (s as ModelSettings) : undefined;
}

/**
 * The caller's request headers that have a value (the AI SDK leaves unset ones `undefined`). The AI SDK's own
 * `user-agent` (`ai/<version>`) is left out: it is not the caller's, the provider's client sends its own, and it would
 * put the SDK's version into every request in history.
 */
function headersOf(given: LanguageModelV4CallOptions['headers']): Record<string, string> | undefined {
  if (given === undefined) return undefined;
  const entries = Object.entries(given).filter(
    (e): e is [string, string] => e[1] !== undefined && e[0].toLowerCase() !== 'user-agent',
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
