import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AnswerContext, ProviderFormat, StreamEvent } from './format.js';
import type { CutStep, EchoAuthStep, MalformedStep, OkStep, Step, StreamErrorStep } from './steps.js';

/** One request being answered. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  format: ProviderFormat;
  ctx: AnswerContext;
  /** The request asked for `stream: true`. */
  stream: boolean;
  /** The request's headers, lower-cased. */
  headers: Record<string, string>;
  /** The request's body as received. */
  rawBody: string;
  /** Aborted when the client goes away or the server closes: every wait ends at once. */
  signal: AbortSignal;
  /** Called right after each streamed content delta was written. */
  deltaSent?: () => void;
}

/** How `perform` left the exchange: `sent` still has to be confirmed by the response finishing. */
export type Ending = 'sent' | 'dropped' | 'cut' | 'aborted';

/** Carries out one step on the exchange. Never throws for a client that went away. */
export async function perform(step: Step, ex: Exchange): Promise<Ending> {
  if (step.delayMs !== undefined && step.delayMs > 0 && !(await sleep(step.delayMs, ex.signal)))
    return 'aborted';
  const extra = step.headers ?? {};
  switch (step.kind) {
    case 'ok':
      return ex.stream
        ? streamAnswer(step, ex, extra)
        : send(ex, 200, extra, ex.format.success(step, ex.ctx));
    case 'error': {
      const message = step.message ?? `loopback provider: scripted ${step.status} error`;
      const retryDelay = step.retryDelay === undefined ? {} : { retryDelay: step.retryDelay };
      const body = step.body ?? ex.format.error(step.status, { ...pick(step), ...retryDelay, message });
      return send(ex, step.status, extra, body);
    }
    case 'echo-auth':
      return echoAuth(step, ex, extra);
    case 'malformed':
      return malformed(step, ex, extra);
    case 'drop':
      ex.req.socket.destroy();
      return 'dropped';
    case 'cut':
      return cut(step, ex, extra);
    case 'hang':
      await sleep(Number.POSITIVE_INFINITY, ex.signal);
      return 'aborted';
    case 'stream-error':
      return streamError(step, ex, extra);
  }
}

function echoAuth(step: EchoAuthStep, ex: Exchange, extra: Record<string, string>): Ending {
  const status = step.status ?? 401;
  const received =
    ex.headers['authorization'] ??
    ex.headers['x-api-key'] ??
    ex.headers['x-goog-api-key'] ??
    '(no credentials received)';
  if (step.everywhere !== true) {
    return send(ex, status, extra, ex.format.error(status, { message: `invalid api key: ${received}` }));
  }
  const key = received.replace(/^(bearer|basic)\s+/i, '');
  const message = `Incorrect API key provided: ${key}. Received ${received} with the request ${ex.rawBody}`;
  const echoed = { ...extra, 'x-echoed-authorization': received, 'x-echoed-key': key };
  return send(ex, status, echoed, ex.format.error(status, { message, code: key, type: key }));
}

function pick(step: { type?: string; code?: string }): { type?: string; code?: string } {
  return {
    ...(step.type === undefined ? {} : { type: step.type }),
    ...(step.code === undefined ? {} : { code: step.code }),
  };
}

function send(
  ex: Exchange,
  status: number,
  extra: Record<string, string>,
  body: unknown,
  type = JSON_TYPE,
): Ending {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  ex.res.writeHead(status, headers(ex, type, extra, Buffer.byteLength(text)));
  ex.res.end(text);
  return 'sent';
}

async function streamAnswer(step: OkStep, ex: Exchange, extra: Record<string, string>): Promise<Ending> {
  const events = ex.format.stream(step, ex.ctx);
  const stopAt = cutIndex(events, step.cutAfterChunks);
  const endAt = cutIndex(events, step.endAfterChunks);
  ex.res.writeHead(200, headers(ex, SSE_TYPE, extra));
  ex.res.flushHeaders();
  for (const [i, event] of events.entries()) {
    if (i === stopAt) {
      const pause = step.cutPauseMs ?? 0;
      if (pause > 0 && !(await sleep(pause, ex.signal))) return 'aborted';
      return destroyAfterFlush(ex, '');
    }
    if (i === endAt) break;
    const pause = event.delta ? (step.chunkDelayMs ?? 0) : 0;
    if (pause > 0 && !(await sleep(pause, ex.signal))) return 'aborted';
    if (ex.signal.aborted) return 'aborted';
    ex.res.write(event.text);
    if (event.delta) ex.deltaSent?.();
  }
  ex.res.end();
  return 'sent';
}

function streamError(step: StreamErrorStep, ex: Exchange, extra: Record<string, string>): Ending {
  const message = step.message ?? `loopback provider: scripted ${step.type} inside the stream`;
  if (!ex.stream) {
    const body = ex.format.error(400, {
      message: 'loopback provider: a stream-error step needs a streamed request',
    });
    return send(ex, 400, extra, body);
  }
  const answer: OkStep = { kind: 'ok', text: step.text ?? 'this answer breaks off with an error' };
  const events = ex.format.stream(answer, ex.ctx);
  const errorAt = cutIndex(events, step.afterChunks ?? 0);
  ex.res.writeHead(200, headers(ex, SSE_TYPE, extra));
  for (const event of events.slice(0, errorAt)) {
    ex.res.write(event.text);
    if (event.delta) ex.deltaSent?.();
  }
  const fields = {
    type: step.type,
    message,
    ...(step.code === undefined ? {} : { code: step.code }),
    ...(step.event === undefined ? {} : { event: step.event }),
  };
  ex.res.end(ex.format.streamError(fields, ex.ctx));
  return 'sent';
}

/** The index of the event before which a stream cut after `n` deltas happens (right after the last delta at most). */
function cutIndex(events: readonly StreamEvent[], n: number | undefined): number {
  if (n === undefined) return -1;
  let seen = 0;
  for (const [i, event] of events.entries()) {
    if (!event.delta) continue;
    if (seen === n) return i;
    seen += 1;
  }
  const lastDelta = events.findLastIndex((e) => e.delta);
  return lastDelta === -1 ? events.length - 1 : lastDelta + 1;
}

function malformed(step: MalformedStep, ex: Exchange, extra: Record<string, string>): Ending {
  const type = step.contentType ?? (ex.stream ? SSE_TYPE : JSON_TYPE);
  if (step.body !== undefined) return send(ex, 200, extra, step.body, type);
  const shape = step.shape ?? 'invalid-json';
  if (shape === 'empty') return send(ex, 200, extra, '', type);
  if (shape === 'wrong-shape') {
    const body = ex.format.wrongShape(ex.ctx);
    return send(ex, 200, extra, ex.stream ? ex.format.event(body) + ex.format.streamEnd : body, type);
  }
  const whole = JSON.stringify(ex.format.success({ kind: 'ok', text: 'not json' }, ex.ctx));
  const broken = whole.slice(0, Math.floor(whole.length / 2));
  return send(ex, 200, extra, ex.stream ? `data: ${broken}\n\n${ex.format.streamEnd}` : broken, type);
}

function cut(step: CutStep, ex: Exchange, extra: Record<string, string>): Promise<Ending> {
  const answer: OkStep = { kind: 'ok', text: step.text ?? 'this answer will be cut off in the middle' };
  const whole = Buffer.from(
    ex.stream
      ? ex.format
          .stream(answer, ex.ctx)
          .map((e) => e.text)
          .join('')
      : JSON.stringify(ex.format.success(answer, ex.ctx)),
  );
  const sent = Math.max(1, Math.floor(whole.length * (step.fraction ?? 0.5)));
  ex.res.writeHead(
    200,
    headers(ex, ex.stream ? SSE_TYPE : JSON_TYPE, extra, ex.stream ? undefined : whole.length),
  );
  return destroyAfterFlush(ex, whole.subarray(0, sent));
}

/** Writes `data`, and once it has reached the socket, destroys the connection. */
function destroyAfterFlush(ex: Exchange, data: string | Buffer): Promise<Ending> {
  return new Promise((resolve) => {
    const kill = (): void => {
      ex.req.socket.destroy();
      resolve('cut');
    };
    if (data.length === 0) {
      ex.res.flushHeaders();
      setImmediate(kill);
    } else {
      ex.res.write(data, () => setImmediate(kill));
    }
  });
}

const JSON_TYPE = 'application/json';
const SSE_TYPE = 'text/event-stream';

function headers(
  ex: Exchange,
  type: string,
  extra: Record<string, string>,
  length?: number,
): OutgoingHttpHeaders {
  return {
    'content-type': type,
    ...(type === SSE_TYPE ? { 'cache-control': 'no-cache' } : {}),
    ...(length === undefined ? {} : { 'content-length': length }),
    'x-loopback-seq': String(ex.ctx.seq),
    ...extra,
  };
}

/** Resolves true after `ms`, or false as soon as `signal` aborts; leaves no timer behind either way. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (elapsed: boolean): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(elapsed);
    };
    const onAbort = (): void => done(false);
    const timer = Number.isFinite(ms) ? setTimeout(() => done(true), ms) : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
