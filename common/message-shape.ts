/** The shapes a message conversion works with, and the checks that refuse a value naming its field. */
import { InvalidModelCallInputError } from './input-error.js';
import { toWire } from './request.js';
import type { WireMessage } from './request.js';

export type Part = Record<string, unknown>;

export type UserPart = Extract<WireMessage, { role: 'user' }>['content'][number];

export type AssistantPart = Extract<WireMessage, { role: 'assistant' }>['content'][number];

export type ToolPart = Extract<WireMessage, { role: 'tool' }>['content'][number];

export type FileData = Extract<UserPart, { type: 'file' }>['data'];

export const refuse = (field: string, message: string): never => {
  throw new InvalidModelCallInputError(field, message);
};

export function optionsAt(value: unknown, field: string): Record<string, Record<string, never>> | undefined {
  if (value === undefined) return undefined;
  const options = objectAt(value, field, 'an object keyed by provider (`{ anthropic: { ... } }`)');
  for (const [provider, v] of Object.entries(options)) {
    if (v !== undefined) objectAt(v, `${field}.${provider}`, "an object of that provider's options");
  }
  return toWire(options) as Record<string, Record<string, never>>;
}

export function partAt(value: unknown, field: string): Part {
  return objectAt(value, field, 'a part `{ type, ... }`');
}

export function objectAt(value: unknown, field: string, what: string): Part {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(field, `must be ${what}`);
  return value as Part;
}

export function arrayAt(value: unknown, field: string, what: string): unknown[] {
  if (!Array.isArray(value)) refuse(field, `must be ${what}`);
  return value as unknown[];
}

/** A tool call's arguments as a value: the parsed JSON text, or the text itself when it is not JSON. */
export function argsValue(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
