import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crash, handleRequest } from './handler.js';
import { assertNoUnexpected, assertScriptsConsumed, Ledger } from './ledger.js';
import type { RecordedRequest, UnexpectedRequest } from './record.js';
import { ScriptBook } from './script.js';
import type { Step } from './steps.js';

/** Options of `startLoopbackProvider`. */
export interface LoopbackOptions {
  /** @default 0 (a free port chosen by the system) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Scripts to load at start, by model (`*` for any model). */
  scripts?: Record<string, readonly unknown[]>;
  /** Called for every request the script did not foresee (the CLI prints them). */
  onUnexpected?: (surprise: UnexpectedRequest) => void;
}

/**
 * A fake LLM provider on a real loopback HTTP server: it speaks OpenAI's chat completions and Anthropic's
 * messages, OpenAI's Responses API and Gemini's generateContent (JSON and server-sent events), and embeddings
 * (OpenAI's `/v1/embeddings`, Gemini's `embedContent` / `batchEmbedContents`), answers each request with the next scripted step for its model,
 * records every request, and fails loudly (HTTP 500 and a note in `unexpected()`) when a script runs out.
 */
export class LoopbackProvider {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** The base URL for OpenAI-compatible clients: `url + '/v1'`. */
  readonly openaiBaseURL: string;
  /** The base URL for Anthropic clients: `url + '/v1'`. */
  readonly anthropicBaseURL: string;
  /** The base URL for Gemini clients (`@ai-sdk/google`): `url + '/v1beta'`. */
  readonly googleBaseURL: string;

  private readonly book = new ScriptBook();
  private readonly ledger = new Ledger();
  private readonly active = new Set<AbortController>();
  private closing: Promise<void> | undefined;

  /** Use `startLoopbackProvider`. */
  constructor(
    private readonly server: Server,
    options: LoopbackOptions,
  ) {
    const { address, port } = server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    this.port = port;
    this.url = `http://${host}:${port}`;
    this.openaiBaseURL = `${this.url}/v1`;
    this.anthropicBaseURL = `${this.url}/v1`;
    this.googleBaseURL = `${this.url}/v1beta`;
    const deps = {
      book: this.book,
      ledger: this.ledger,
      control: this,
      onUnexpected: options.onUnexpected,
      closing: () => this.closing !== undefined,
      track: (controller: AbortController) => {
        this.active.add(controller);
        return () => this.active.delete(controller);
      },
    };
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void handleRequest(deps, req, res).catch((error: unknown) => crash(res, error));
    });
    for (const [model, steps] of Object.entries(options.scripts ?? {})) this.script(model, steps);
  }

  /**
   * Appends steps to the script of `model` (`*`: any model whose own script is empty). Plain JSON steps are
   * validated. @throws InvalidScriptError naming the bad field.
   */
  script(model: string, steps: readonly Step[] | readonly unknown[]): this {
    this.book.add(model, steps);
    return this;
  }

  /** Every request received (control requests excepted), oldest first; only those for `model` when given. */
  requests(model?: string): RecordedRequest[] {
    return this.ledger.requests(model);
  }

  requestCount(model?: string): number {
    return this.ledger.requests(model).length;
  }

  /** Requests the script did not foresee (script ran out, unknown route, no model). */
  unexpected(): UnexpectedRequest[] {
    return this.ledger.unexpected();
  }

  /** Scripted steps not used yet, by model (repeating steps never count). */
  remaining(): Record<string, Step[]> {
    return this.book.remaining();
  }

  /** @throws Error listing the unexpected requests, if any. */
  assertNoUnexpected(): void {
    assertNoUnexpected(this.ledger);
  }

  /** @throws Error when a scripted step was never requested or a request was unexpected. */
  assertScriptsConsumed(): void {
    assertScriptsConsumed(this.ledger, this.book);
  }

  /**
   * Resolves once at least `count` requests (for `model` when given) have been received and recorded, e.g.
   * to act on a request while it is in flight; rejects if the provider closes first. Unlike `idle()`, which
   * only knows requests already received, this waits for requests still on their way.
   */
  waitForRequests(count: number, model?: string): Promise<void> {
    if (this.closing !== undefined && this.requestCount(model) < count) {
      return Promise.reject(new Error('loopback provider: closed, no request will come'));
    }
    return this.ledger.received(count, model);
  }

  /**
   * Resolves once no request is being answered (e.g. to see how an aborted request was recorded). Only
   * requests the provider has received count: to act on one in flight, `waitForRequests` first.
   */
  idle(): Promise<void> {
    return this.ledger.idle();
  }

  /** Forgets scripts, records and unexpected requests. */
  reset(): void {
    this.book.clear();
    this.ledger.clear();
  }

  /**
   * Stops listening, ends every wait and destroys every connection; resolves once every request is recorded
   * as ended and the server's own handles (listening socket, connections) are released. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.ledger.stopWaiting();
      for (const controller of this.active) controller.abort();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    })
      .then(() => this.ledger.idle())
      .then(handlesReleased);
    return this.closing;
  }

  /** Names of the scripted models (for `GET /v1/models`). */
  models(): string[] {
    return this.book.models();
  }
}

/** Starts a loopback provider and resolves once it listens. */
export function startLoopbackProvider(options: LoopbackOptions = {}): Promise<LoopbackProvider> {
  const server = createServer({ keepAlive: true });
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => void handlesReleased().then(() => reject(error));
    server.once('error', failed);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', failed);
      try {
        resolve(new LoopbackProvider(server, options));
      } catch (error) {
        server.close(() => void handlesReleased().then(() => reject(toError(error))));
      }
    });
  });
}

/**
 * Resolves once libuv has released the handles closed so far. `server.close()`'s callback (and the `error` of
 * a failed `listen`) comes before that: the listening handle is only freed in the loop's close-callbacks
 * phase, which follows the check phase. The first `setImmediate` may still run before that phase in the
 * current turn; the second runs in the next turn, after it.
 */
function handlesReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
