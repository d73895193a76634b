/**
 * The worker's tools: what an agent turn's model may call. Each tool is a function with a description, a JSON
 * Schema of its input, and its own Temporal retry policy and timeout (never the unlimited default).
 *
 * ```ts
 * createActivities({
 *   tools: {
 *     lookup_order: {
 *       description: 'Looks an order up by its id',
 *       inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
 *       run: async ({ id }, ctx) => orders.get(id, { signal: ctx.signal }),
 *       retry: { maximumAttempts: 5 },
 *       timeoutMs: 10_000,
 *     },
 *   },
 * });
 * ```
 */
import { BUILTIN_TOOLS } from './builtins.js';
import { InvalidToolError } from './errors.js';
import type { TurnToolDefinition } from '../../common/tools.js';
import type { ToolSpec } from './spec.js';

export type { ToolContext, ToolSpec } from './spec.js';

/** The retry policy and timeout of a tool whose `ToolSpec` sets none. */
export const TOOL_DEFAULTS = Object.freeze({
  retry: Object.freeze({
    maximumAttempts: 3,
    initialIntervalMs: 1000,
    backoffCoefficient: 2,
    maximumIntervalMs: 10_000,
  }),
  timeoutMs: 60_000,
});
const MAX_TOOL_ATTEMPTS = 100;
const MAX_TOOL_TIMEOUT_MS = 24 * 3_600_000;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The tools of a worker: the built-ins (unless left out) and the user's own, which win over a built-in of the same name. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolSpec>();

  /** @throws InvalidToolError naming the tool and the field. */
  constructor(tools: Record<string, ToolSpec> = {}, options: { builtins?: boolean } = {}) {
    const all = { ...(options.builtins === false ? {} : BUILTIN_TOOLS), ...tools };
    for (const [name, spec] of Object.entries(all)) {
      checkTool(name, spec);
      this.tools.set(name, spec);
    }
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  get(name: string): ToolSpec | undefined {
    return this.tools.get(name);
  }

  /** What the workflow needs to know of a tool, every default filled in; `undefined` for an unknown name. */
  definition(name: string): TurnToolDefinition | undefined {
    const spec = this.tools.get(name);
    if (!spec) return undefined;
    return {
      name,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      inputSchema: spec.inputSchema,
      retry: { ...TOOL_DEFAULTS.retry, ...spec.retry },
      timeoutMs: spec.timeoutMs ?? TOOL_DEFAULTS.timeoutMs,
      fatal: spec.fatal === true,
    };
  }
}

function checkTool(name: string, spec: ToolSpec): void {
  const refuse = (field: string, fix: string): never => {
    throw new InvalidToolError(`tool \`${name}\`${field ? ` \`${field}\`` : ''}: ${fix}`);
  };
  if (!TOOL_NAME.test(name)) refuse('', 'a tool name is 1 to 64 letters, digits, `_` or `-`');
  if (typeof spec !== 'object' || spec === null) refuse('', 'give `{ description, inputSchema, run }`');
  if (typeof spec.run !== 'function') refuse('run', 'give the function that runs the tool');
  if (typeof spec.inputSchema !== 'object' || spec.inputSchema === null || Array.isArray(spec.inputSchema)) {
    refuse('inputSchema', 'give a JSON Schema object, e.g. `{ type: "object", properties: {} }`');
  }
  const r = spec.retry ?? {};
  const attempts = r.maximumAttempts;
  if (
    attempts !== undefined &&
    (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_TOOL_ATTEMPTS)
  ) {
    refuse('retry.maximumAttempts', `give a whole number from 1 to ${MAX_TOOL_ATTEMPTS} (never unlimited)`);
  }
  for (const key of ['initialIntervalMs', 'maximumIntervalMs'] as const) {
    const v = r[key];
    if (v !== undefined && (!Number.isFinite(v) || v <= 0))
      refuse(`retry.${key}`, 'give a positive time in ms');
  }
  const c = r.backoffCoefficient;
  if (c !== undefined && (!Number.isFinite(c) || c < 1))
    refuse('retry.backoffCoefficient', 'give a number of at least 1');
  const t = spec.timeoutMs;
  if (t !== undefined && (!Number.isFinite(t) || t <= 0 || t > MAX_TOOL_TIMEOUT_MS)) {
    refuse('timeoutMs', 'give a positive time in ms, at most a day');
  }
}
