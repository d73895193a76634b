/**
 * Built-in tools, for the demo, tests and trying things out. A turn uses only the tools it names.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { CalculatorError, evaluate } from './calculator.js';
import { ToolError } from './errors.js';
import type { ToolSpec } from './spec.js';

const MAX_SLEEP_MS = 600_000;

/** `get_time`: the current time of the worker's clock, as an ISO 8601 instant in UTC (`2026-03-01T12:00:00.000Z`). */
const getTime: ToolSpec<Record<string, never>> = {
  description: 'Returns the current time as an ISO 8601 instant in UTC, e.g. 2026-03-01T12:00:00.000Z.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: (_input, ctx) => new Date(ctx.now()).toISOString(),
  timeoutMs: 5000,
};

/** `calculator`: evaluates arithmetic (`+ - * / % ^`, parentheses) without `eval`. */
const calculator: ToolSpec<{ expression?: unknown }> = {
  description: 'Evaluates an arithmetic expression with + - * / % ^ and parentheses, e.g. "(2 + 3) * 4".',
  inputSchema: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'The arithmetic expression' } },
    required: ['expression'],
    additionalProperties: false,
  },
  run: ({ expression }) => {
    if (typeof expression !== 'string') throw new ToolError('give `expression` as a string, e.g. "2 + 3"');
    try {
      return String(evaluate(expression));
    } catch (error) {
      if (error instanceof CalculatorError) throw new ToolError(`cannot evaluate: ${error.message}`);
      throw error;
    }
  },
  timeoutMs: 5000,
};

/** `sleep_ms`: waits `ms` milliseconds (at most 10 minutes), ending early when the turn is cancelled. */
const sleepMs: ToolSpec<{ ms?: unknown }> = {
  description: 'Waits the given number of milliseconds (at most 600000), then says so.',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0, maximum: MAX_SLEEP_MS } },
    required: ['ms'],
    additionalProperties: false,
  },
  run: async ({ ms }, ctx) => {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_SLEEP_MS) {
      throw new ToolError(`give \`ms\` as a whole number from 0 to ${MAX_SLEEP_MS}`);
    }
    await sleepFor(ms, undefined, { signal: ctx.signal });
    return `slept ${ms} ms`;
  },
  retry: { maximumAttempts: 1 },
  timeoutMs: MAX_SLEEP_MS + 10_000,
};

/**
 * `fail_tool`: fails on purpose, for tests and demos. `fatal: true` stops the turn; `untilAttempt: n` fails
 * attempts before the n-th and then succeeds (so the tool's retry policy shows); otherwise every attempt fails.
 */
const failTool: ToolSpec<{ message?: unknown; fatal?: unknown; untilAttempt?: unknown }> = {
  description: 'Fails on purpose (a test tool). Optional: message, fatal (stops the turn), untilAttempt.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      fatal: { type: 'boolean' },
      untilAttempt: { type: 'integer', minimum: 1 },
    },
    additionalProperties: false,
  },
  run: ({ message, fatal, untilAttempt }, ctx) => {
    const text = typeof message === 'string' ? message : 'fail_tool failed on purpose';
    if (fatal === true) throw new ToolError(text, { fatal: true });
    if (typeof untilAttempt === 'number' && ctx.attempt >= untilAttempt)
      return `succeeded on attempt ${ctx.attempt}`;
    throw new Error(text);
  },
  retry: { maximumAttempts: 3, initialIntervalMs: 100, maximumIntervalMs: 1000 },
  timeoutMs: 5000,
};

/** The built-in tools by name. */
export const BUILTIN_TOOLS: Readonly<Record<string, ToolSpec>> = Object.freeze({
  get_time: getTime as ToolSpec,
  calculator: calculator as ToolSpec,
  sleep_ms: sleepMs as ToolSpec,
  fail_tool: failTool as ToolSpec,
});
