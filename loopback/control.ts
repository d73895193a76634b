import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest, UnexpectedRequest } from './record.js';
import type { Ending } from './respond.js';
import type { Step } from './steps.js';
import { InvalidScriptError, parseSteps } from './validate.js';

/** What the control endpoint needs of the provider. */
export interface Controllable {
  readonly url: string;
  script(model: string, steps: readonly unknown[]): unknown;
  requests(model?: string): RecordedRequest[];
  unexpected(): UnexpectedRequest[];
  remaining(): Record<string, Step[]>;
  reset(): void;
}

/**
 * The control endpoint, for a provider running in another process:
 *
 * - `GET  /_loopback/health` -> `{ ok: true, url }`
 * - `POST /_loopback/script` `{ model, steps }` (or `{ scripts: { [model]: steps } }`) -> `{ ok: true, remaining }`
 * - `GET  /_loopback/requests[?model=M]` -> `{ requests }`
 * - `GET  /_loopback/unexpected` -> `{ unexpected }`
 * - `GET  /_loopback/remaining` -> `{ remaining }` (unused steps by model)
 * - `POST /_loopback/reset` -> `{ ok: true }`
 *
 * Errors answer `{ error: message }` with 400 (bad script) or 404 (unknown route).
 */
export function handleControl(
  provider: Controllable,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  raw: string,
): void {
  const route = `${req.method ?? 'GET'} ${path}`;
  const query = new URL(req.url ?? '/', 'http://loopback').searchParams;
  try {
    switch (route) {
      case 'GET /_loopback/health':
        sendJson(res, 200, { ok: true, url: provider.url });
        return;
      case 'POST /_loopback/script':
        // Check every script before adding any, so a bad request changes nothing.
        for (const [model, steps] of scriptsOf(raw).map(([m, s]) => [m, parseSteps(s, m)] as const)) {
          provider.script(model, steps);
        }
        sendJson(res, 200, { ok: true, remaining: provider.remaining() });
        return;
      case 'GET /_loopback/requests': {
        const model = query.get('model');
        sendJson(res, 200, { requests: provider.requests(model ?? undefined) });
        return;
      }
      case 'GET /_loopback/unexpected':
        sendJson(res, 200, { unexpected: provider.unexpected() });
        return;
      case 'GET /_loopback/remaining':
        sendJson(res, 200, { remaining: provider.remaining() });
        return;
      case 'POST /_loopback/reset':
        provider.reset();
        sendJson(res, 200, { ok: true });
        return;
      default:
        sendJson(res, 404, { error: `loopback provider: no control route ${route}` });
    }
  } catch (error) {
    if (!(error instanceof InvalidScriptError)) throw error;
    sendJson(res, 400, { error: error.message });
  }
}

function scriptsOf(raw: string): Array<[string, unknown[]]> {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new InvalidScriptError(
      'the body must be JSON: { model, steps } or { scripts: { [model]: steps } }',
    );
  }
  if (typeof body !== 'object' || body === null)
    throw new InvalidScriptError('the body must be a JSON object');
  const { model, steps, scripts } = body as { model?: unknown; steps?: unknown; scripts?: unknown };
  if (scripts !== undefined) {
    if (typeof scripts !== 'object' || scripts === null)
      throw new InvalidScriptError('scripts must be an object');
    return Object.entries(scripts as Record<string, unknown>).map(([m, s]) => [
      m,
      asArray(s, `scripts.${m}`),
    ]);
  }
  if (typeof model !== 'string')
    throw new InvalidScriptError('model must be a string (or "*" for any model)');
  return [[model, asArray(steps, 'steps')]];
}

function asArray(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new InvalidScriptError(`${where} must be an array of steps`);
  return value;
}

/** Sends a complete JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): Ending {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return 'sent';
}
