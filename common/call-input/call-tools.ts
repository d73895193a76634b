import type { ModelCallInput } from '../call.js';
import { toWire } from '../request.js';
import type { WireTool } from '../request.js';
import { InvalidModelCallInputError } from '../input-error.js';

/** What OpenAI and Anthropic accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DEFINITION_KEYS = [
  'name',
  'description',
  'inputSchema',
  'type',
  'strict',
  'inputExamples',
  'providerOptions',
];
const RECORD_KEYS = ['description', 'inputSchema', 'type', 'strict', 'inputExamples', 'providerOptions'];
/** A provider-defined tool's id: `provider.tool_name` (`anthropic.web_search_20250305`). */
const PROVIDER_TOOL_ID = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+$/;
/** The AI SDK's mark on what `jsonSchema()` and `zodSchema()` return. */
const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema');
const SHAPES =
  "give `[{ name, description, inputSchema }]`, or the AI SDK's record `{ weather: { description, inputSchema } }`";

const refuse = (field: string, message: string): never => {
  throw new InvalidModelCallInputError(field, message);
};

/**
 * A call's tools as the provider gets them, checked: our list `[{ name, description?, inputSchema }]`, or the
 * AI SDK's record shape `{ weather: { description?, inputSchema } }` (as `generateText` takes them), converted.
 * A schema may be plain JSON Schema, the AI SDK's `jsonSchema()`/`zodSchema()`, or a Standard JSON Schema
 * (zod 4.2 and later): all become plain JSON here, before anything crosses Temporal. Refused, naming the field
 * and the fix: an `execute` (a call returns tool calls and runs no tool; a function cannot enter the history),
 * a provider-defined tool, a schema with no JSON Schema to give (zod 3, a zod schema that went through JSON),
 * a schema that is not an object schema, an unknown key, a bad or repeated name. `undefined` for no tools.
 */
export function toolsOf(tools: unknown): WireTool[] | undefined {
  if (tools === undefined) return undefined;
  if (typeof tools !== 'object' || tools === null) return refuse('tools', SHAPES);
  const out = Array.isArray(tools)
    ? tools.map((t, i) => fromDefinition(t, `tools[${i}]`))
    : Object.entries(tools).map(([name, t]) => fromRecord(name, t));
  const names = out.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) refuse('tools', `names the tool "${twice}" twice`);
  return out.length > 0 ? out : undefined;
}

/** The call input with its tools as our plain list (what `startModelCall` sends into Temporal). */
export function plainTools(input: ModelCallInput): ModelCallInput {
  if (input.tools === undefined) return input;
  const { tools: given, ...rest } = input;
  const tools = toolsOf(given);
  return tools ? { ...rest, tools } : rest;
}

/** A provider-defined tool (`{ type: 'provider', id, name, args }`), carried as it is to the provider. */
function providerTool(name: string, t: Record<string, unknown>, field: string): WireTool {
  if (typeof t.id !== 'string' || !PROVIDER_TOOL_ID.test(t.id))
    refuse(
      `${field}.id`,
      'a provider-defined tool names its provider and tool: `anthropic.web_search_20250305`',
    );
  const args = t.args ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    refuse(`${field}.args`, "must be an object of the tool's arguments");
  checkJson(args, `${field}.args`, new Set());
  return {
    type: 'provider',
    id: t.id as `${string}.${string}`,
    name,
    args: toWire(args) as Record<string, never>,
  };
}

function isProviderTool(t: Record<string, unknown>): boolean {
  return t.type === 'provider' || t.type === 'provider-defined';
}

function fromDefinition(value: unknown, field: string): WireTool {
  const t = objectAt(value, field, 'an object `{ name, description, inputSchema }`');
  if (isProviderTool(t)) {
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name))
      refuse(`${field}.name`, 'a tool name is 1 to 64 letters, digits, `_` or `-`');
    return providerTool(t.name as string, t, field);
  }
  for (const key of Object.keys(t)) {
    if (!DEFINITION_KEYS.includes(key)) {
      refuse(`${field}.${key}`, `unknown field; a tool has ${DEFINITION_KEYS.join(', ')}`);
    }
  }
  if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
    refuse(`${field}.name`, 'a tool name is 1 to 64 letters, digits, `_` or `-`');
  }
  return definition(t.name as string, t, field);
}

function fromRecord(name: string, value: unknown): WireTool {
  const field = TOOL_NAME.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
  if (!TOOL_NAME.test(name)) refuse(field, 'a tool name is 1 to 64 letters, digits, `_` or `-`');
  const t = objectAt(value, field, '`{ description, inputSchema }`');
  if ('execute' in t) {
    refuse(
      `${field}.execute`,
      'a model call asks the model and returns its tool calls (`output.toolCalls`); it runs no tool, and a ' +
        'function cannot cross into Temporal. Leave `execute` out and run the tool calls yourself (as with an AI ' +
        'SDK tool without `execute`), or register the tool in the worker (`createActivities({ tools })`) and ' +
        'use an agent turn',
    );
  }
  if (isProviderTool(t)) return providerTool(name, t, field);
  if (t.type !== undefined && t.type !== 'function' && t.type !== 'dynamic') {
    refuse(
      `${field}.type`,
      `"${String(t.type)}" is not a tool type: give a function tool (\`{ description, inputSchema }\`) or a provider-defined tool`,
    );
  }
  if ('parameters' in t && !('inputSchema' in t)) {
    refuse(`${field}.parameters`, 'the AI SDK (5 and later) calls it `inputSchema`: rename it');
  }
  for (const key of Object.keys(t)) {
    if (!RECORD_KEYS.includes(key)) {
      const known = RECORD_KEYS.map((k) => `\`${k}\``).join(', ');
      refuse(`${field}.${key}`, `not supported; a tool here has ${known}`);
    }
  }
  return definition(name, t, field);
}

function definition(name: string, t: Record<string, unknown>, field: string): WireTool {
  if (t.description !== undefined && typeof t.description !== 'string') {
    refuse(
      `${field}.description`,
      typeof t.description === 'function'
        ? 'must be a string: a description computed from a context cannot cross into Temporal; compute it first'
        : 'must be a string',
    );
  }
  if (t.type !== undefined && t.type !== 'function' && t.type !== 'dynamic')
    refuse(`${field}.type`, 'must be "function", or "provider" for a provider-defined tool');
  if (t.strict !== undefined && typeof t.strict !== 'boolean') refuse(`${field}.strict`, 'must be a boolean');
  if (t.providerOptions !== undefined) checkJson(t.providerOptions, `${field}.providerOptions`, new Set());
  if (t.inputExamples !== undefined) checkJson(t.inputExamples, `${field}.inputExamples`, new Set());
  return {
    type: 'function',
    name,
    ...(t.description !== undefined ? { description: t.description as string } : {}),
    inputSchema: schemaOf(t.inputSchema, `${field}.inputSchema`) as never,
    ...(t.strict !== undefined ? { strict: t.strict as boolean } : {}),
    ...(t.inputExamples !== undefined ? { inputExamples: toWire(t.inputExamples) as never } : {}),
    ...(t.providerOptions !== undefined ? { providerOptions: toWire(t.providerOptions) as never } : {}),
  };
}

const OBJECT_SCHEMA = '`{ type: "object", properties: { city: { type: "string" } } }`';

/** A tool's input schema as plain JSON Schema, converted from the AI SDK's or a Standard JSON Schema. */
function schemaOf(value: unknown, field: string): Record<string, unknown> {
  const given = objectAt(value, field, `a JSON Schema of an object, e.g. ${OBJECT_SCHEMA}`);
  let schema: unknown = given;
  const standard = given['~standard'] as { vendor?: unknown; jsonSchema?: { input?: unknown } } | undefined;
  if (standard !== undefined) {
    const input = standard?.jsonSchema?.input;
    if (typeof input !== 'function') {
      return refuse(
        field,
        `is a ${String(standard?.vendor ?? 'validator')} schema with no JSON Schema to send (zod before 4.2?): ` +
          "wrap it in the AI SDK's `zodSchema()`, or give its JSON Schema (`z.toJSONSchema(schema)`)",
      );
    }
    schema = (input as (o: { target: string }) => unknown).call(standard.jsonSchema, { target: 'draft-07' });
  } else if (AI_SDK_SCHEMA in given || isWrapped(given)) {
    schema = given.jsonSchema;
    if (typeof (schema as { then?: unknown } | null)?.then === 'function') {
      return refuse(
        field,
        'is a schema still being resolved (a promise): await it, then pass the JSON Schema',
      );
    }
  } else if ('_def' in given || '_zod' in given || ('def' in given && typeof given.def === 'object')) {
    return refuse(
      field,
      'is a zod schema, or one that went through JSON: give its JSON Schema (`z.toJSONSchema(schema)` or the ' +
        "AI SDK's `zodSchema(schema)`) before it reaches the call",
    );
  }
  const json = objectAt(schema, field, `a JSON Schema of an object, e.g. ${OBJECT_SCHEMA}`);
  checkJson(json, field, new Set());
  // A schema without `type` is left to the provider (the worker's tool registry takes such schemas too).
  if (json.type !== undefined && json.type !== 'object') {
    refuse(
      `${field}.type`,
      `must be "object": providers take an object schema for a tool's input, e.g. ${OBJECT_SCHEMA}`,
    );
  }
  return json;
}

/** `jsonSchema(x)` of the AI SDK after JSON (its symbol and `validate` gone): `{ jsonSchema: x }` alone. */
function isWrapped(o: Record<string, unknown>): boolean {
  const keys = Object.keys(o).filter((k) => o[k] !== undefined && typeof o[k] !== 'function');
  return keys.length === 1 && keys[0] === 'jsonSchema';
}

/** Refuses anything in a schema that is not JSON data (a function, `undefined`, a class instance, a cycle). */
function checkJson(value: unknown, path: string, seen: Set<unknown>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) refuse(path, `is ${value}, not a JSON number`);
    return;
  }
  if (typeof value !== 'object') {
    refuse(path, `is ${typeof value === 'function' ? 'a function' : typeof value}, not JSON data`);
    return;
  }
  if (seen.has(value)) refuse(path, 'refers to itself (a cycle); a JSON Schema is a tree');
  // A plain object's prototype is Object.prototype of its realm (the workflow sandbox has its own), or null.
  const proto = Object.getPrototypeOf(value) as object | null;
  if (!Array.isArray(value) && proto !== null && Object.getPrototypeOf(proto) !== null) {
    refuse(path, 'is an object of a class, not JSON data');
  }
  seen.add(value);
  for (const [k, v] of Object.entries(value))
    checkJson(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`, seen);
  seen.delete(value);
}

function objectAt(value: unknown, field: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(field, `must be ${what}`);
  return value as Record<string, unknown>;
}
