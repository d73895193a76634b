import { describe, expect, it } from 'vitest';
import { InvalidToolError, ToolRegistry } from '../../../activities/tools/index.js';
import type { ToolSpec } from '../../../activities/tools/index.js';

const echo: ToolSpec = { description: 'Echoes', inputSchema: { type: 'object' }, run: (input) => input };

describe('the tool registry', () => {
  it('offers the built-ins, each with a bounded retry policy and a timeout', () => {
    const registry = new ToolRegistry();
    expect(registry.names()).toEqual(['get_time', 'calculator', 'sleep_ms', 'fail_tool']);
    for (const name of registry.names()) {
      const def = registry.definition(name);
      expect(def?.retry.maximumAttempts).toBeGreaterThanOrEqual(1);
      expect(def?.retry.maximumAttempts).toBeLessThanOrEqual(100);
      expect(def?.timeoutMs).toBeGreaterThan(0);
    }
  });

  it('fills in the defaults of a user tool: 3 attempts with backoff, 60 s, not fatal', () => {
    const def = new ToolRegistry({ echo }).definition('echo');
    expect(def).toEqual({
      name: 'echo',
      description: 'Echoes',
      inputSchema: { type: 'object' },
      retry: {
        maximumAttempts: 3,
        initialIntervalMs: 1000,
        backoffCoefficient: 2,
        maximumIntervalMs: 10_000,
      },
      timeoutMs: 60_000,
      fatal: false,
    });
  });

  it('lets a user tool replace a built-in, and leaves the built-ins out when asked', () => {
    expect(new ToolRegistry({ calculator: echo }).definition('calculator')?.description).toBe('Echoes');
    expect(new ToolRegistry({ echo }, { builtins: false }).names()).toEqual(['echo']);
  });

  it.each([
    ['an unlimited retry', { ...echo, retry: { maximumAttempts: 0 } }, 'retry.maximumAttempts'],
    ['a fractional attempt count', { ...echo, retry: { maximumAttempts: 2.5 } }, 'retry.maximumAttempts'],
    ['a negative interval', { ...echo, retry: { initialIntervalMs: -1 } }, 'retry.initialIntervalMs'],
    ['a shrinking backoff', { ...echo, retry: { backoffCoefficient: 0.5 } }, 'retry.backoffCoefficient'],
    ['no timeout', { ...echo, timeoutMs: 0 }, 'timeoutMs'],
    ['no schema', { ...echo, inputSchema: undefined as never }, 'inputSchema'],
    ['no run', { ...echo, run: undefined as never }, 'run'],
  ])('refuses %s, naming the field', (_name, spec, field) => {
    expect(() => new ToolRegistry({ echo: spec as ToolSpec })).toThrow(InvalidToolError);
    expect(() => new ToolRegistry({ echo: spec as ToolSpec })).toThrow(`\`${field}\``);
  });

  it('refuses a tool name the model APIs do not accept', () => {
    expect(() => new ToolRegistry({ 'two words': echo })).toThrow('a tool name is 1 to 64');
  });
});
