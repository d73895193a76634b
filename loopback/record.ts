import type { IncomingMessage } from 'node:http';
import { embeddingRoute } from './embeddings.js';
import type { RequestContinuation } from './continuation.js';
import type { ProviderApi } from './format.js';
import type { Step } from './steps.js';

/** How a recorded request ended. */
export type RequestOutcome =
  /** Still being answered. */
  | 'pending'
  /** The whole response was sent. */
  | 'completed'
  /** The connection was destroyed before any response (a `drop` step). */
  | 'dropped'
  /** The connection was destroyed after part of the response (a `cut` step, or `cutAfterChunks`). */
  | 'cut'
  /** The client went away before the response was complete. */
  | 'client-aborted'
  /** `close()` ended it. */
  | 'server-closed';

/** One request received by the loopback provider. */
export interface RecordedRequest {
  /** 1, 2, ... in order of arrival, across all models. */
  seq: number;
  /** When the request's headers arrived (ms since the epoch). */
  receivedAt: number;
  /** When the exchange ended (ms since the epoch). */
  endedAt?: number;
  method: string;
  /** Path without the query string. */
  path: string;
  api: ProviderApi | 'other';
  /** The body's `model` (Gemini: the path's), when it had one. */
  model?: string;
  /** Whether the body asked for `stream: true` (Gemini: the path is `:streamGenerateContent`). */
  stream: boolean;
  /** Header names lower-cased; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The body parsed as JSON; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /**
   * The text the request delivered (its last assistant message's, when not empty) and how it asked to continue
   * it: `prefill` (that message ends the request) or `instruction` (a message follows it). Absent otherwise.
   */
  continuation?: RequestContinuation;
  /** The text a step with `continues` answered this request (what the adversarial mode made of it). */
  answer?: string;
  /** The step that answered (absent for unexpected requests). */
  step?: Step;
  /** The script the step came from (model name or `*`) and its position there. */
  script?: string;
  stepIndex?: number;
  /**
   * A streamed answer: when each content delta (what `cutAfterChunks` counts) was written to the connection, ms
   * since the epoch, in order; a stream cut short has fewer. Times a delta from the provider to where it arrives.
   */
  deltasSentAt?: number[];
  /** The HTTP status sent, when headers were sent. */
  status?: number;
  outcome: RequestOutcome;
  /** Set when the provider answered 500/404 because nothing was scripted for this request. */
  unexpected?: string;
}

/** A request the script did not foresee: the provider answered it with an error and kept this note. */
export interface UnexpectedRequest {
  seq: number;
  at: number;
  method: string;
  path: string;
  model?: string;
  message: string;
}

/** Starts the record of a request whose body has been read. */
export function recordOf(seq: number, req: IncomingMessage, path: string, rawBody: string): RecordedRequest {
  const body = parseBody(rawBody);
  const embedding = embeddingRoute(path);
  const gemini =
    geminiPath(path) ?? (embedding?.api === 'google' ? { model: embedding.model, stream: false } : undefined);
  const model = gemini?.model ?? (isRecord(body) && typeof body.model === 'string' ? body.model : undefined);
  const stream = gemini?.stream ?? (isRecord(body) && body.stream === true);
  const api = apiOf(path);
  return {
    seq,
    receivedAt: Date.now(),
    method: req.method ?? 'GET',
    path,
    api,
    ...(model === undefined ? {} : { model }),
    stream,
    headers: headersOf(req),
    body,
    outcome: 'pending',
  };
}

/** Gemini names the model and the streaming in the path: `/v1beta/models/<model>:streamGenerateContent`. */
export function geminiPath(path: string): { model: string; stream: boolean } | undefined {
  const match = /^\/v1beta\/models\/(.+):(generateContent|streamGenerateContent)$/.exec(path);
  if (match?.[1] === undefined) return undefined;
  return { model: decodeURIComponent(match[1]), stream: match[2] === 'streamGenerateContent' };
}

function apiOf(path: string): RecordedRequest['api'] {
  if (path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  if (path === '/v1/responses') return 'openai-responses';
  if (geminiPath(path) !== undefined) return 'google';
  return embeddingRoute(path)?.api ?? 'other';
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
