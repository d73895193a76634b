import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicFormat } from './anthropic.js';
import { handleControl, sendJson } from './control.js';
import type { Controllable } from './control.js';
import type { ProviderFormat } from './format.js';
import type { Ledger } from './ledger.js';
import { googleFormat } from './google.js';
import { openaiFormat } from './openai.js';
import { openaiResponsesFormat } from './openai-responses.js';
import { embeddingFormatOf } from './embeddings.js';
import { answerContinuation, continuationOf } from './continuation.js';
import { geminiPath, recordOf } from './record.js';
import type { RecordedRequest, UnexpectedRequest } from './record.js';
import { perform } from './respond.js';
import type { Ending } from './respond.js';
import type { ScriptBook } from './script.js';

/** What answering a request needs from the server. */
export interface HandlerDeps {
  book: ScriptBook;
  ledger: Ledger;
  control: Controllable;
  onUnexpected?: ((surprise: UnexpectedRequest) => void) | undefined;
  /** Whether `close()` has begun (an interrupted request then ends as `server-closed`). */
  closing(): boolean;
  /** Lets `close()` abort this request's waits; returns the function that forgets it. */
  track(controller: AbortController): () => void;
}

const ROUTES: Record<string, ProviderFormat> = {
  'POST /v1/chat/completions': openaiFormat,
  'POST /v1/messages': anthropicFormat,
  'POST /v1/responses': openaiResponsesFormat,
};

/** The format of a route: a fixed path, or Gemini's path that names the model. */
function formatOf(method: string, path: string): ProviderFormat | undefined {
  if (method === 'POST' && geminiPath(path) !== undefined) return googleFormat;
  return ROUTES[`${method} ${path}`];
}

/** Answers one HTTP request: a control request, or a provider request from the script (and records it). */
export async function handleRequest(
  deps: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://loopback').pathname;
  const raw = await readBody(req);
  if (raw === undefined) return;
  if (path.startsWith('/_loopback/')) return handleControl(deps.control, req, res, path, raw);

  const record = deps.ledger.open(recordOf(deps.ledger.nextSeq(), req, path, raw));
  const controller = new AbortController();
  const forget = deps.track(controller);
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const interrupted = (): RecordedRequest['outcome'] => (deps.closing() ? 'server-closed' : 'client-aborted');
  try {
    const ending = await answer(deps, record, { req, res, rawBody: raw }, controller.signal);
    if (res.headersSent) record.status = res.statusCode;
    const outcome = ending === 'dropped' || ending === 'cut' ? ending : await settle(ending, res);
    deps.ledger.end(record, outcome ?? interrupted());
  } finally {
    forget();
    deps.ledger.end(record, interrupted());
  }
}

async function answer(
  deps: HandlerDeps,
  record: RecordedRequest,
  { req, res, rawBody }: { req: IncomingMessage; res: ServerResponse; rawBody: string },
  signal: AbortSignal,
): Promise<Ending> {
  const route = `${record.method} ${record.path}`;
  if (route === 'GET /v1/models') {
    const data = deps.book.models().map((id) => ({ id, object: 'model', created: 0, owned_by: 'loopback' }));
    return sendJson(res, 200, { object: 'list', data });
  }
  const embeddings = record.method === 'POST' ? embeddingFormatOf(record.path, record.body) : undefined;
  const format = embeddings ?? formatOf(record.method, record.path);
  if (format === undefined) return refuse(deps, record, res, 404, openaiFormat, `no route for ${route}`);
  const continuation = continuationOf(format.lastAssistant?.(record.body));
  if (continuation !== undefined) record.continuation = continuation;
  if (record.model === undefined) {
    const why = `request to ${record.path} has no "model" in its JSON body`;
    return refuse(deps, record, res, 400, format, why);
  }
  const served = deps.book.take(record.model);
  if (served === undefined) {
    const count = deps.book.servedCount(record.model) - 1;
    const why = `script for model "${record.model}" ran out after ${count} request${count === 1 ? '' : 's'}`;
    return refuse(deps, record, res, 500, format, why);
  }
  Object.assign(record, { step: served.step, script: served.script, stepIndex: served.index });
  const ctx = { seq: record.seq, model: record.model };
  const { stream, headers } = record;
  const deltaSent = (): void => void (record.deltasSentAt ??= []).push(Date.now());
  const step = served.step.kind === 'ok' ? answerContinuation(served.step, continuation) : served.step;
  if (step !== served.step && step.kind === 'ok') record.answer = step.text ?? '';
  return perform(step, { req, res, format, ctx, stream, headers, rawBody, signal, deltaSent });
}

/** Fails loudly: answers an error in the provider's format and notes the surprise. */
function refuse(
  deps: HandlerDeps,
  record: RecordedRequest,
  res: ServerResponse,
  status: number,
  format: ProviderFormat,
  why: string,
): Ending {
  const message = `loopback provider: ${why}`;
  const surprise = deps.ledger.surprise(record, message);
  deps.onUnexpected?.(surprise);
  return sendJson(res, status, format.error(status, { type: 'loopback_unexpected_request', message }));
}

/** `completed` once a sent response has finished; undefined when the connection closed first. */
async function settle(ending: Ending, res: ServerResponse): Promise<'completed' | undefined> {
  if (ending !== 'sent') return undefined;
  const finished =
    res.writableFinished ||
    (await new Promise<boolean>((resolve) => {
      res.once('finish', () => resolve(true));
      res.once('close', () => resolve(res.writableFinished));
    }));
  return finished ? 'completed' : undefined;
}

/** Answers 500 (or drops the connection once headers are out) for a bug in the loopback provider itself. */
export function crash(res: ServerResponse, error: unknown): void {
  const message = `loopback provider: internal error: ${error instanceof Error ? error.message : String(error)}`;
  if (!res.headersSent) sendJson(res, 500, { error: { message, type: 'loopback_internal_error' } });
  else res.destroy();
}

/** The whole request body as text, or undefined when the client went away first. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}
