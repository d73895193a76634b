/**
 * A model request as it is kept in history: the AI SDK's language model call options (specification v4) in one
 * versioned, JSON-safe wire form. Bytes travel as base64 strings and URLs as strings; there is no abort signal.
 * The workflow builds it once, before the first attempt; the attempt activity decodes it and hands the provider
 * exactly these options, so whatever a provider supports reaches it.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';

/** The version of the wire form, kept in every request (`request.spec`). */
export const REQUEST_SPEC = 1;

/** `T` as it crosses Temporal: `URL` and byte arrays become strings (a URL's text, base64), the rest unchanged. */
export type Wire<T> = T extends URL
  ? string
  : T extends Uint8Array
    ? string
    : T extends Date
      ? string
      : T extends readonly (infer U)[]
        ? Wire<U>[]
        : T extends object
          ? { [K in keyof T]: Wire<T[K]> }
          : T;

/** One message of a request: the AI SDK's `LanguageModelV4Message` in wire form. */
export type WireMessage = Wire<LanguageModelV4Message>;
/** A part of an answer's content in wire form (text, reasoning, tool calls and results, files, sources). */
export type WireContent = Wire<LanguageModelV4Content>;
/** A tool of a request: a function tool (name, description, JSON Schema) or a provider-defined tool. */
export type WireTool = Wire<NonNullable<LanguageModelV4CallOptions['tools']>[number]>;
export type WireToolChoice = LanguageModelV4ToolChoice;

/** The generation settings of the AI SDK's call options, each as the AI SDK names it. */
export type WireSettings = Pick<
  LanguageModelV4CallOptions,
  | 'maxOutputTokens'
  | 'temperature'
  | 'stopSequences'
  | 'topP'
  | 'topK'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'seed'
  | 'reasoning'
>;

/**
 * The request of a call, as every attempt sends it (a repair's corrections are appended to `prompt` by the
 * attempt's own copy). Plain JSON, written into history: nothing secret may be part of it.
 */
export interface WireRequest extends WireSettings {
  spec: typeof REQUEST_SPEC;
  prompt: WireMessage[];
  tools?: WireTool[];
  toolChoice?: WireToolChoice;
  /** A JSON answer without a schema model-retry validates (a schema is the call's `output`). */
  responseFormat?: Wire<NonNullable<LanguageModelV4CallOptions['responseFormat']>>;
  providerOptions?: Wire<NonNullable<LanguageModelV4CallOptions['providerOptions']>>;
  headers?: Record<string, string>;
  /**
   * An embedding request (`durableEmbeddingModel`): the texts to embed, and the vectors' size when asked; the
   * attempt calls an embedding model's `doEmbed` instead of a language model, and `prompt` is then `[]`.
   */
  embed?: WireEmbed;
}

/** What an embedding request sends: the AI SDK's `EmbeddingModelV4CallOptions` less the signal and headers. */
export interface WireEmbed {
  values: string[];
  /** The vectors' size, for models that can shorten them (`dimensions` of `embed` / `embedMany`). */
  dimensions?: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Bytes as base64, without `Buffer` or `btoa` (neither is in Temporal's workflow sandbox). */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + '=';
  }
  return out;
}

const BASE64_VALUES: Readonly<Record<string, number>> = Object.fromEntries([...BASE64].map((c, i) => [c, i]));

/**
 * The bytes of a base64 string (padding optional), without `Buffer` or `atob`: the inverse of `bytesToBase64`.
 * @throws TypeError for a character that is not base64 or a length no base64 string has.
 */
export function base64ToBytes(data: string): Uint8Array {
  const text = data.endsWith('==') ? data.slice(0, -2) : data.endsWith('=') ? data.slice(0, -1) : data;
  if (text.length % 4 === 1) throw new TypeError(`not base64: a length of ${data.length}`);
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    const count = Math.min(4, text.length - i);
    for (let j = 0; j < 4; j += 1) {
      const c = j < count ? text[i + j]! : 'A';
      if (!Object.hasOwn(BASE64_VALUES, c)) throw new TypeError(`not base64: ${JSON.stringify(c)}`);
      n = (n << 6) | BASE64_VALUES[c]!;
    }
    out[o++] = (n >> 16) & 255;
    if (count > 2) out[o++] = (n >> 8) & 255;
    if (count > 3) out[o++] = n & 255;
  }
  return out;
}

/** Whether a value is a byte array (also one made in another realm, as the workflow sandbox is). */
export function isBytes(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]';
}

function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return Object.prototype.toString.call(value) === '[object ArrayBuffer]';
}

/** Whether a value is a `URL` (also one made in another realm). */
export function isUrl(value: unknown): value is URL {
  return (
    value instanceof URL ||
    (typeof value === 'object' &&
      value !== null &&
      Object.prototype.toString.call(value) === '[object URL]' &&
      typeof (value as URL).href === 'string')
  );
}

/**
 * Any value made JSON-safe the way the wire form is: byte arrays and array buffers as base64, URLs as their text,
 * dates as ISO strings, `undefined` fields left out. Everything else is copied as it is.
 */
export function toWire<T>(value: T): Wire<T> {
  return wireOf(value) as Wire<T>;
}

function wireOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isBytes(value)) return bytesToBase64(value);
  if (isArrayBuffer(value)) return bytesToBase64(new Uint8Array(value));
  if (isUrl(value)) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(wireOf);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    // A `__proto__` key of parsed JSON (a tool's input, a result) is data: assigning it would set the prototype.
    const wire = wireOf(v);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: wire, enumerable: true, writable: true });
    else out[key] = wire;
  }
  return out;
}

/** The settings of a request that are set (absent ones are left to the provider). */
export function settingsOf(request: WireSettings): WireSettings {
  const out: WireSettings = {};
  for (const key of SETTING_KEYS) {
    const value = request[key];
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** The generation settings a request may carry, as the AI SDK names them. */
export const SETTING_KEYS = [
  'maxOutputTokens',
  'temperature',
  'stopSequences',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'reasoning',
] as const satisfies readonly (keyof WireSettings)[];
