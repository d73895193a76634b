import { describe, expect, it } from 'vitest';
import { AI_SDK_POLYFILLS, installAiSdkPolyfills } from '../../../workflows/ai-sdk/polyfills.js';

describe("the AI SDK's polyfills for the workflow sandbox", () => {
  it('adds Headers, the Web Streams classes and structuredClone to a global object that lacks them, and they work', async () => {
    const sandbox: Record<string, unknown> = {};
    const added = installAiSdkPolyfills(sandbox);
    expect(added).toEqual(
      expect.arrayContaining(['Headers', 'structuredClone', 'ReadableStream', 'TransformStream']),
    );
    const Headers = sandbox.Headers as typeof globalThis.Headers;
    expect(new Headers({ 'X-A': '1' }).get('x-a')).toBe('1');
    const clone = sandbox.structuredClone as typeof globalThis.structuredClone;
    const value = { a: [1, { b: 2 }] };
    expect(clone(value)).toEqual(value);
    expect(clone(value)).not.toBe(value);
    const ReadableStream = sandbox.ReadableStream as typeof globalThis.ReadableStream;
    const TransformStream = sandbox.TransformStream as typeof globalThis.TransformStream;
    const upper = new TransformStream<string, string>({
      transform: (c, ctl) => ctl.enqueue(c.toUpperCase()),
    });
    const source = new ReadableStream<string>({
      start(ctl) {
        ctl.enqueue('a');
        ctl.enqueue('b');
        ctl.close();
      },
    });
    const out: string[] = [];
    const reader = source.pipeThrough(upper).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    expect(out).toEqual(['A', 'B']);
  });

  it('never replaces a global that exists (outside the sandbox Node has them all)', () => {
    const own = { Headers: 'mine' };
    const added = installAiSdkPolyfills(own);
    expect(own.Headers).toBe('mine');
    expect(added).not.toContain('Headers');
    expect(installAiSdkPolyfills(globalThis)).toEqual([]);
    expect(AI_SDK_POLYFILLS.length).toBeGreaterThan(3);
  });
});
