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
import type { ChatMessage, ToolCall } from './attempt.js';
import { InvalidModelCallInputError } from './input-error.js';
import { bytesToBase64, isBytes, isUrl, toWire } from './request.js';
import type { WireContent, WireMessage } from './request.js';

/** One message a call accepts: the AI SDK's `ModelMessage` (also in wire form) or the plain shape. */
export type CallMessage = ChatMessage | { role: string; content: unknown; [key: string]: unknown };

type Part = Record<string, unknown>;
type UserPart = Extract<WireMessage, { role: 'user' }>['content'][number];
type AssistantPart = Extract<WireMessage, { role: 'assistant' }>['content'][number];
type ToolPart = Extract<WireMessage, { role: 'tool' }>['content'][number];
type FileData = Extract<UserPart, { type: 'file' }>['data'];

const refuse = (field: string, message: string): never => {
  throw new InvalidModelCallInputError(field, message);
};

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

function toWireMessage(value: unknown, field: string): WireMessage {
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

function textPart(part: Part, at: string): Extract<UserPart, { type: 'text' }> {
  if (typeof part.text !== 'string') refuse(`${at}.text`, 'must be a string');
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return { type: 'text', text: part.text as string, ...(providerOptions ? { providerOptions } : {}) };
}

function filePart(part: Part, at: string): Extract<UserPart, { type: 'file' }> {
  const image = part.type === 'image';
  const given = image ? part.image : part.data;
  const field = `${at}.${image ? 'image' : 'data'}`;
  if (given === undefined || given === null) refuse(field, 'is missing: give bytes, base64 or a URL');
  const { data, mediaType: fromUrl } = fileData(given, field);
  const mediaType = fromUrl ?? (part.mediaType as string | undefined) ?? (image ? 'image' : undefined);
  if (typeof mediaType !== 'string' || mediaType === '')
    refuse(`${at}.mediaType`, 'is missing: give the IANA media type (`application/pdf`, `image/png`)');
  if (part.filename !== undefined && typeof part.filename !== 'string')
    refuse(`${at}.filename`, 'must be a string');
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return {
    type: 'file',
    data,
    mediaType: mediaType as string,
    ...(part.filename !== undefined ? { filename: part.filename as string } : {}),
    ...(providerOptions ? { providerOptions } : {}),
  };
}

/** File data in the tagged wire shape, with the media type a `data:` URL names. */
function fileData(given: unknown, field: string): { data: FileData; mediaType?: string } {
  if (typeof given === 'object' && given !== null && !isBytes(given) && !isUrl(given) && 'type' in given) {
    const tagged = given as Part;
    switch (tagged.type) {
      case 'data':
        if (typeof tagged.data === 'string' && tagged.data.startsWith('data:'))
          refuse(`${field}.data`, 'a data URL is not inline data: pass it as `{ type: "url", url }`');
        return inline(tagged.data, `${field}.data`);
      case 'url':
        return urlData(tagged.url, `${field}.url`, tagged.originalUrl);
      case 'reference':
        return {
          data: { type: 'reference', reference: referenceAt(tagged.reference, `${field}.reference`) },
        };
      case 'text':
        if (typeof tagged.text !== 'string') refuse(`${field}.text`, 'must be a string');
        return { data: { type: 'text', text: tagged.text as string } };
      default:
        return refuse(`${field}.type`, 'file data is `{ type: "data" | "url" | "reference" | "text", ... }`');
    }
  }
  if (isUrl(given)) return urlData(given, field);
  if (typeof given === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(given)) return urlData(given, field);
    return inline(given, field);
  }
  if (isBytes(given) || Object.prototype.toString.call(given) === '[object ArrayBuffer]')
    return inline(given, field);
  if (typeof given === 'object' && given !== null) {
    return { data: { type: 'reference', reference: referenceAt(given, field) } };
  }
  return refuse(field, 'must be bytes (a Uint8Array), a base64 string, a URL or `{ type, ... }` file data');
}

function inline(value: unknown, field: string): { data: FileData } {
  if (typeof value === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value))
      refuse(field, 'is neither a URL nor base64: give bytes or base64');
    return { data: { type: 'data', data: value } };
  }
  if (isBytes(value) || Object.prototype.toString.call(value) === '[object ArrayBuffer]')
    return { data: { type: 'data', data: toWire(value as Uint8Array) } };
  return refuse(field, 'must be bytes (a Uint8Array) or a base64 string');
}

function urlData(
  value: unknown,
  field: string,
  originalUrl?: unknown,
): { data: FileData; mediaType?: string } {
  let url: URL;
  try {
    url = isUrl(value) ? value : new URL(String(value));
  } catch {
    return refuse(field, `"${String(value).slice(0, 80)}" is not a URL`);
  }
  if (url.username !== '' || url.password !== '')
    refuse(field, 'a URL with a user name or password in it would be written into the history: remove them');
  if (url.protocol === 'data:') {
    const text = url.href;
    const comma = text.indexOf(',');
    const params = text.slice(5, comma).split(';');
    const mediaType = params[0];
    if (comma < 0 || !mediaType)
      refuse(field, 'is a data URL without a media type: `data:image/png;base64,...`');
    const payload = text.slice(comma + 1);
    if (params.includes('base64'))
      return { data: { type: 'data', data: payload }, mediaType: mediaType as string };
    // Percent-encoded text (`data:text/plain,hello%20world`): its bytes, as base64 like every inline file.
    let decoded: string;
    try {
      decoded = decodeURIComponent(payload);
    } catch {
      return refuse(field, 'is a data URL whose text is not percent-encoded UTF-8');
    }
    const data = bytesToBase64(new TextEncoder().encode(decoded));
    return { data: { type: 'data', data }, mediaType: mediaType as string };
  }
  const original =
    typeof originalUrl === 'string' ? originalUrl : typeof value === 'string' ? value : undefined;
  return {
    data: {
      type: 'url',
      url: url.href,
      ...(original !== undefined && original !== url.href ? { originalUrl: original } : {}),
    },
  };
}

function referenceAt(value: unknown, field: string): Record<string, string> {
  const ref = objectAt(value, field, 'a provider reference `{ provider: id }`');
  const entries = Object.entries(ref);
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== 'string'))
    refuse(field, 'a provider reference maps provider names to ids: `{ openai: "file-abc" }`');
  return ref as Record<string, string>;
}

function toolCallPart(part: Part, at: string, extra: object): AssistantPart {
  if (typeof part.toolCallId !== 'string') refuse(`${at}.toolCallId`, 'must be a string');
  if (typeof part.toolName !== 'string') refuse(`${at}.toolName`, 'must be a string');
  return {
    type: 'tool-call',
    toolCallId: part.toolCallId as string,
    toolName: part.toolName as string,
    // `null` is a tool's input as much as `{}` is (the AI SDK keeps it): only a missing input becomes `{}`.
    input: toWire(part.input === undefined ? {} : part.input) as never,
    ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
    ...extra,
  };
}

const OUTPUT_TYPES = ['text', 'json', 'execution-denied', 'error-text', 'error-json', 'content'];

function toolResultPart(part: Part, at: string): Extract<ToolPart, { type: 'tool-result' }> {
  if (typeof part.toolCallId !== 'string') refuse(`${at}.toolCallId`, 'must be a string');
  if (typeof part.toolName !== 'string') refuse(`${at}.toolName`, 'must be a string');
  const output = objectAt(part.output, `${at}.output`, "`{ type, value }` (the AI SDK's tool result output)");
  if (!OUTPUT_TYPES.includes(output.type as string))
    refuse(`${at}.output.type`, `must be one of ${OUTPUT_TYPES.join(', ')}`);
  let value: unknown = output.value;
  if (output.type === 'content') {
    value = arrayAt(output.value, `${at}.output.value`, 'an array of text and file parts').map((p, k) => {
      const c = partAt(p, `${at}.output.value[${k}]`);
      const file = c.type === 'file' || c.type === 'image' ? c : legacyFile(c, `${at}.output.value[${k}]`);
      return file ? filePart(file, `${at}.output.value[${k}]`) : toWire(c);
    });
  }
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId as string,
    toolName: part.toolName as string,
    output: toWire({ ...output, ...(value !== undefined ? { value } : {}) }) as never,
    ...(providerOptions ? { providerOptions } : {}),
  };
}

/**
 * A tool result's content part of a kind the AI SDK still takes but no longer sends (`file-data`, `image-url`,
 * `file-reference`, ...), as the file part the AI SDK turns it into (the specification knows text, file and custom
 * parts only); `undefined` for the other parts. A file id as a bare string names no provider (the AI SDK resolves it
 * by the one provider of its model; a call may have several): give `{ provider: id }`.
 */
function legacyFile(c: Part, at: string): Part | undefined {
  const options = c.providerOptions !== undefined ? { providerOptions: c.providerOptions } : {};
  const file = (data: Part, mediaType: unknown, extra: Part = {}): Part => ({
    type: 'file',
    data,
    mediaType,
    ...extra,
    ...options,
  });
  const fileId = (): Part => {
    if (typeof c.fileId === 'string')
      refuse(`${at}.fileId`, 'a bare file id names no provider: give `{ openai: "file-abc" }`');
    return { type: 'reference', reference: c.fileId };
  };
  switch (c.type) {
    case 'file-data':
      return file(
        { type: 'data', data: c.data },
        c.mediaType,
        c.filename !== undefined ? { filename: c.filename } : {},
      );
    case 'image-data':
      return file({ type: 'data', data: c.data }, c.mediaType);
    case 'file-url':
      if (c.mediaType === undefined)
        refuse(`${at}.mediaType`, 'is missing: give the IANA media type of the file');
      return file({ type: 'url', url: c.url }, c.mediaType);
    case 'image-url':
      return file({ type: 'url', url: c.url }, 'image');
    case 'file-id':
      return file(fileId(), 'application');
    case 'image-file-id':
      return file(fileId(), 'image');
    case 'file-reference':
      return file({ type: 'reference', reference: c.providerReference }, 'application');
    case 'image-file-reference':
      return file({ type: 'reference', reference: c.providerReference }, 'image');
    default:
      return undefined;
  }
}

function plainToolCalls(value: unknown, field: string): AssistantPart[] {
  return arrayAt(value, field, 'an array of `{ id, name, args }`').map((c, k) => {
    const call = objectAt(c, `${field}[${k}]`, '`{ id, name, args }`') as Partial<ToolCall>;
    if (typeof call.id !== 'string') refuse(`${field}[${k}].id`, 'must be a string');
    if (typeof call.name !== 'string') refuse(`${field}[${k}].name`, 'must be a string');
    if (typeof call.args !== 'string')
      refuse(`${field}[${k}].args`, 'must be the JSON text of the arguments');
    return {
      type: 'tool-call',
      toolCallId: call.id!,
      toolName: call.name!,
      input: argsValue(call.args!) as never,
    };
  });
}

/** A tool call's arguments as a value: the parsed JSON text, or the text itself when it is not JSON. */
function argsValue(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function optionsAt(value: unknown, field: string): Record<string, Record<string, never>> | undefined {
  if (value === undefined) return undefined;
  const options = objectAt(value, field, 'an object keyed by provider (`{ anthropic: { ... } }`)');
  for (const [provider, v] of Object.entries(options)) {
    if (v !== undefined) objectAt(v, `${field}.${provider}`, "an object of that provider's options");
  }
  return toWire(options) as Record<string, Record<string, never>>;
}

function partAt(value: unknown, field: string): Part {
  return objectAt(value, field, 'a part `{ type, ... }`');
}

function objectAt(value: unknown, field: string, what: string): Part {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(field, `must be ${what}`);
  return value as Part;
}

function arrayAt(value: unknown, field: string, what: string): unknown[] {
  if (!Array.isArray(value)) refuse(field, `must be ${what}`);
  return value as unknown[];
}

/**
 * The assistant message an answer adds to a conversation, as the AI SDK's step loop makes it: the content in
 * order, reasoning and tool calls with the provider's metadata as their `providerOptions` (so a signed thinking
 * block or an encrypted reasoning item goes back to the model in the next step), provider-executed tool calls with
 * their results. Without `content` (an answer of an earlier version), its text and tool calls.
 */
export function assistantMessageOf(output: {
  text: string;
  toolCalls: readonly ToolCall[];
  content?: readonly WireContent[];
}): WireMessage {
  if (output.content === undefined) {
    return toWireMessage({ role: 'assistant', content: output.text, toolCalls: output.toolCalls }, 'answer');
  }
  const parts: AssistantPart[] = [];
  for (const c of output.content) {
    const providerOptions =
      'providerMetadata' in c && c.providerMetadata !== undefined
        ? { providerOptions: c.providerMetadata as Record<string, Record<string, never>> }
        : {};
    switch (c.type) {
      case 'text':
        // An empty text goes back only with its metadata (an item id), as the AI SDK's step loop sends it.
        if (c.text !== '' || 'providerOptions' in providerOptions)
          parts.push({ type: 'text', text: c.text, ...providerOptions });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: c.text, ...providerOptions });
        break;
      case 'reasoning-file':
        parts.push({ type: 'reasoning-file', data: c.data, mediaType: c.mediaType, ...providerOptions });
        break;
      case 'file':
        parts.push({ type: 'file', data: c.data, mediaType: c.mediaType, ...providerOptions });
        break;
      case 'tool-call':
        parts.push({
          type: 'tool-call',
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: argsValue(c.input) as never,
          ...(c.providerExecuted === true ? { providerExecuted: true } : {}),
          ...providerOptions,
        });
        break;
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          output: (c.isError === true
            ? { type: 'error-json', value: c.result }
            : { type: 'json', value: c.result }) as never,
          ...providerOptions,
        });
        break;
      default:
        // Sources, custom content and approval requests are the answer's, not the conversation's.
        break;
    }
  }
  return { role: 'assistant', content: parts };
}

/** The text parts of a wire message, joined. */
export function textOfMessage(message: WireMessage): string {
  if (message.role === 'system') return message.content;
  return message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}
