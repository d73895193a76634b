/**
 * A call's messages as the request carries them: the AI SDK's `ModelMessage`s (string or part contents: text,
 * image, file, reasoning, tool-call and tool-result parts, each with its `providerOptions`) and model-retry's plain
 * shape (string contents, an assistant's `toolCalls`, a tool message per result), converted into the language
 * model specification's messages in wire form. The rules are the AI SDK's own (`convertToLanguageModelPrompt`):
 * an image part is a file part of media type `image` unless it says more, a string that parses as a URL is a URL
 * (a `data:` URL is its bytes and media type), other strings are base64, consecutive tool messages are one. It
 * runs in workflow code and in the client, so it is synchronous and never downloads: a URL stays a URL, and the
 * attempt downloads it where a model cannot take it. Wire messages convert to themselves.
 */
import type { ChatMessage } from './attempt.js';
import { toWire } from './request.js';
import type { WireMessage } from './request.js';
import { arrayAt, objectAt, optionsAt, partAt, refuse } from './message-shape.js';
import type { AssistantPart, Part, ToolPart, UserPart } from './message-shape.js';
import { filePart } from './message-files.js';
import { plainToolCalls, textPart, toolCallPart, toolResultPart } from './message-parts.js';

/** One message a call accepts: the AI SDK's `ModelMessage` (also in wire form) or the plain shape. */
export type CallMessage = ChatMessage | { role: string; content: unknown; [key: string]: unknown };

const ROLES = ['system', 'user', 'assistant', 'tool'];

/**
 * Converts and checks a call's messages (`messages[i]` names each in a refusal). Throws
 * `InvalidModelCallInputError` naming the field and the fix for what is not a message.
 */
export function toWireMessages(messages: readonly unknown[], at = 'messages'): WireMessage[] {
  const out: WireMessage[] = [];
  messages.forEach((m, i) => {
    const message = toWireMessage(m, `${at}[${i}]`);
    const last = out.at(-1);
    // Results of one assistant turn travel together (Anthropic requires it), joined as the AI SDK joins them: the
    // earlier message's provider options go to its last part, the later message's stay the message's.
    if (message.role === 'tool' && last?.role === 'tool') {
      const lastPart = last.content.at(-1);
      if (lastPart !== undefined && last.providerOptions !== undefined)
        lastPart.providerOptions = mergeOptions(last.providerOptions, lastPart.providerOptions);
      last.content.push(...message.content);
      const options =
        lastPart === undefined
          ? mergeOptions(last.providerOptions, message.providerOptions)
          : message.providerOptions;
      if (options === undefined) delete last.providerOptions;
      else last.providerOptions = options;
    } else out.push(message);
  });
  return out.filter((m) => m.role !== 'tool' || m.content.length > 0);
}

type Options = NonNullable<WireMessage['providerOptions']>;

/** `overrides` deep-merged over `base` (the AI SDK's `mergeObjects`, on JSON). */
function mergeOptions(base: Options | undefined, overrides: Options | undefined): Options | undefined {
  if (base === undefined || overrides === undefined) return overrides ?? base;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined || key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const was = merged[key];
    const bothObjects = [value, was].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? mergeOptions(was as Options, value as unknown as Options) : value;
  }
  return merged as Options;
}

export function toWireMessage(value: unknown, field: string): WireMessage {
  const m = objectAt(value, field, 'a message `{ role, content }`');
  if (!ROLES.includes(m.role as string))
    refuse(`${field}.role`, 'must be one of system, user, assistant, tool');
  const providerOptions = optionsAt(m.providerOptions, `${field}.providerOptions`);
  const extra = providerOptions === undefined ? {} : { providerOptions };
  switch (m.role as 'system' | 'user' | 'assistant' | 'tool') {
    case 'system':
      if (typeof m.content !== 'string') refuse(`${field}.content`, 'a system message holds a string');
      return { role: 'system', content: m.content as string, ...extra };
    case 'user':
      return { role: 'user', content: userContent(m.content, `${field}.content`), ...extra };
    case 'assistant':
      return { role: 'assistant', content: assistantContent(m, field), ...extra };
    case 'tool':
      return { role: 'tool', content: toolContent(m, field), ...extra };
  }
}

function userContent(content: unknown, field: string): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts = arrayAt(content, field, 'a string or an array of text, image and file parts');
  return parts
    .map((p, j): UserPart => {
      const at = `${field}[${j}]`;
      const part = partAt(p, at);
      switch (part.type) {
        case 'text':
          return textPart(part, at);
        case 'image':
        case 'file':
          return filePart(part, at);
        default:
          return refuse(
            `${at}.type`,
            `"${String(part.type)}": a user message holds text, image and file parts`,
          );
      }
    })
    .filter((part, _, all) => part.type !== 'text' || part.text !== '' || isLoneText(all));
}

/**
 * Whether a content is one text part and nothing else. The AI SDK drops empty texts from a parts content but makes
 * `''` a content of one empty text; keeping that one (where the AI SDK would leave nothing) keeps the conversion
 * of a wire message the message itself.
 */
function isLoneText(parts: readonly { type: string }[]): boolean {
  return parts.length === 1 && parts[0]!.type === 'text';
}

function assistantContent(m: Part, field: string): AssistantPart[] {
  const at = `${field}.content`;
  if (typeof m.content === 'string') {
    const calls = m.toolCalls === undefined ? [] : plainToolCalls(m.toolCalls, `${field}.toolCalls`);
    // The plain shape: an empty text beside tool calls is no part of the answer.
    const text: AssistantPart[] =
      m.content === '' && calls.length > 0 ? [] : [{ type: 'text', text: m.content }];
    return [...text, ...calls];
  }
  if (m.toolCalls !== undefined)
    refuse(`${field}.toolCalls`, 'goes with a string content only: give tool-call parts');
  const parts = arrayAt(m.content, at, 'a string or an array of parts');
  const out: AssistantPart[] = [];
  parts.forEach((p, j) => {
    const pat = `${at}[${j}]`;
    const part = partAt(p, pat);
    const providerOptions = optionsAt(part.providerOptions, `${pat}.providerOptions`);
    const extra = providerOptions === undefined ? {} : { providerOptions };
    switch (part.type) {
      case 'text':
        if (part.text === '' && providerOptions === undefined && !isLoneText(parts as never)) return;
        out.push(textPart(part, pat));
        return;
      case 'reasoning':
        if (typeof part.text !== 'string') refuse(`${pat}.text`, 'must be a string');
        out.push({ type: 'reasoning', text: part.text as string, ...extra });
        return;
      case 'file':
        out.push(filePart(part, pat));
        return;
      case 'reasoning-file': {
        const file = filePart({ ...part, type: 'file' }, pat);
        if (file.data.type !== 'data' && file.data.type !== 'url')
          refuse(`${pat}.data`, 'reasoning files hold bytes or a URL');
        out.push({ type: 'reasoning-file', data: file.data as never, mediaType: file.mediaType, ...extra });
        return;
      }
      case 'custom':
        if (typeof part.kind !== 'string') refuse(`${pat}.kind`, 'must be a string `provider.kind`');
        out.push({ type: 'custom', kind: part.kind as `${string}.${string}`, ...extra });
        return;
      case 'tool-call':
        out.push(toolCallPart(part, pat, extra));
        return;
      case 'tool-result':
        out.push(toolResultPart(part, pat));
        return;
      case 'tool-approval-request':
        // The AI SDK's own bookkeeping: providers never see it.
        return;
      default:
        refuse(`${pat}.type`, `"${String(part.type)}" is not an assistant part`);
    }
  });
  return out;
}

function toolContent(m: Part, field: string): ToolPart[] {
  if (typeof m.content === 'string') {
    // The plain shape: one result per message.
    if (typeof m.toolCallId !== 'string' || m.toolCallId === '')
      refuse(`${field}.toolCallId`, 'must name the tool call this result answers');
    if (typeof m.toolName !== 'string') refuse(`${field}.toolName`, 'must be a string');
    if (m.isError !== undefined && typeof m.isError !== 'boolean')
      refuse(`${field}.isError`, 'must be a boolean');
    return [
      {
        type: 'tool-result',
        toolCallId: m.toolCallId as string,
        toolName: m.toolName as string,
        output: { type: m.isError === true ? 'error-text' : 'text', value: m.content },
      },
    ];
  }
  const parts = arrayAt(m.content, `${field}.content`, 'a string or an array of tool-result parts');
  const out: ToolPart[] = [];
  parts.forEach((p, j) => {
    const at = `${field}.content[${j}]`;
    const part = partAt(p, at);
    if (part.type === 'tool-result') out.push(toolResultPart(part, at));
    else if (part.type === 'tool-approval-response') {
      // Only a provider-executed tool's approval goes to the provider; the rest is the AI SDK's bookkeeping.
      if (part.providerExecuted === true) out.push(toWire(part) as ToolPart);
    } else refuse(`${at}.type`, `"${String(part.type)}": a tool message holds tool-result parts`);
  });
  return out;
}
