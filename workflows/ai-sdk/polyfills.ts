/**
 * The Web APIs the AI SDK (`ai` 7) uses at module load and per request that Temporal's workflow sandbox does not
 * have: `Headers`, the Web Streams classes (`ReadableStream`, `TransformStream`, ...; `ai` extends
 * `TransformStream` at module scope, and `streamText` pipes every answer through streams) and `structuredClone`.
 * The sandbox already has `TextEncoder`, `TextDecoder`, `AbortController`, `URL`. Each comes from a well-kept
 * library, none touches the clock, randomness or I/O, so workflow code stays deterministic.
 */
import { Headers } from 'headers-polyfill';
import structuredClone from '@ungap/structured-clone';
import * as streams from 'web-streams-polyfill';

/** The globals `installAiSdkPolyfills` may add. */
export const AI_SDK_POLYFILLS: readonly string[] = [
  'Headers',
  'structuredClone',
  ...Object.keys(streams).filter((name) => name !== 'default'),
];

/**
 * Adds each missing global to `target` (by default the sandbox's `globalThis`); one that exists is never
 * replaced, so outside the sandbox (Node has them all) nothing changes. Returns the names it added.
 */
export function installAiSdkPolyfills(target: object = globalThis): string[] {
  const given: Record<string, unknown> = { Headers, structuredClone, ...streams };
  const added: string[] = [];
  for (const name of AI_SDK_POLYFILLS) {
    if (name in target) continue;
    Object.defineProperty(target, name, {
      value: given[name],
      writable: true,
      configurable: true,
      enumerable: false,
    });
    added.push(name);
  }
  return added;
}
