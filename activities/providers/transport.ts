/**
 * How provider requests reach the network. Node's own `fetch` (undici) gives up after 300 s without response
 * headers and after 300 s between two body chunks, which would cut any `attemptTimeoutMs` above 300 s short
 * (and turn a slow answer into a `ResponseTimeout` that is billed again elsewhere). The attempt already bounds
 * its request by its own timeout T (`request-signal.ts`), so the providers get a `fetch` whose dispatcher has
 * neither limit: T alone decides. The connect timeout stays undici's (10 s): nothing was sent before it.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { Dispatcher } from 'undici';

/** The transport's own limits, in ms; 0 means none (the attempt's timeout T bounds the request). */
export interface TransportOptions {
  /** How long to wait for response headers. @default 0 (none) */
  headersTimeoutMs?: number;
  /** How long to wait between two chunks of the response body. @default 0 (none) */
  bodyTimeoutMs?: number;
}

/** What the dispatcher of provider requests is built with (undici's `Agent` options, the ones set here). */
export interface DispatcherOptions {
  headersTimeout: number;
  bodyTimeout: number;
}

/** Builds the dispatcher; tests may pass their own to see the options in use. */
export type DispatcherFactory = (options: DispatcherOptions) => Dispatcher;

const undiciAgent: DispatcherFactory = (options) => new Agent(options);

/**
 * A `fetch` for the AI SDK providers (`createOpenAI({ fetch })`, ...) whose requests go through one dispatcher
 * (one connection pool) with the given limits: by default none, so only the attempt's timeout T bounds them.
 */
export function createProviderFetch(
  options: TransportOptions = {},
  makeDispatcher: DispatcherFactory = undiciAgent,
): typeof globalThis.fetch {
  const dispatcher = makeDispatcher({
    headersTimeout: options.headersTimeoutMs ?? 0,
    bodyTimeout: options.bodyTimeoutMs ?? 0,
  });
  // undici's own fetch, so that its dispatcher is always of its own version (Node's built-in fetch bundles
  // another undici, whose version follows Node's).
  const fetch = (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    }) as unknown as Promise<Response>;
  return fetch as typeof globalThis.fetch;
}
