import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import protoPackage from '@temporalio/proto';

const Payloads = protoPackage.temporal.api.common.v1.Payloads;

/** Origins of the Temporal Web UIs a codec endpoint answers by default: the dev server's and docker-compose's. */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233', 'http://localhost:8080'];
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Options of `startCodecServer`. */
export interface CodecServerOptions {
  /** The codecs, in encoding order (`dataConverter.payloadCodecs`). */
  codecs: readonly PayloadCodec[];
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 8888; 0 for a free port */
  port?: number;
  /** Browser origins allowed to call (the Temporal Web UI's); `*` allows any. @default DEFAULT_UI_ORIGINS */
  origins?: readonly string[];
  /**
   * When set, every `POST` must carry `Authorization: Bearer <token>` (compared in constant time); others get 401.
   */
  token?: string;
}

/** A running codec endpoint, as `startCodecServer` resolves it. */
export interface CodecServer {
  /** `http://HOST:PORT`, to give the Temporal Web UI ("Codec Server" setting) or `temporal --codec-endpoint`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Temporal's codec server protocol over HTTP, so the Temporal Web UI and CLI can show decrypted payloads to
 * those who may call it: `POST …/decode` and `POST …/encode` (also under a namespace segment, `/NAMESPACE/decode`)
 * take and answer `{ "payloads": [...] }` in proto3 JSON (bytes as base64), run through `codecs`. CORS
 * preflights from `origins` are answered, with credentials allowed, so the UI's "include cookies" and "pass the
 * access token" options work.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const origins = new Set(options.origins ?? DEFAULT_UI_ORIGINS);
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : undefined;
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, { message: (error as Error).message });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin && (origins.has('*') || origins.has(origin))) {
      response.setHeader('Access-Control-Allow-Origin', origins.has('*') ? '*' : origin);
      if (!origins.has('*')) response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Vary', 'Origin');
    }
    const path = new URL(request.url ?? '/', 'http://codec').pathname;
    const route = path.endsWith('/decode') ? 'decode' : path.endsWith('/encode') ? 'encode' : undefined;
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Access-Control-Max-Age', '600');
      response.writeHead(204).end();
      return;
    }
    if (!route) return reply(response, 404, { message: 'not found: POST /decode or /encode' });
    if (request.method !== 'POST') return reply(response, 405, { message: 'use POST' });
    if (expected && !matches(request.headers.authorization, expected))
      return reply(response, 401, { message: 'missing or wrong Authorization header' });
    const body = await readBody(request);
    if (body === undefined) return reply(response, 413, { message: `body over ${MAX_BODY_BYTES} bytes` });
    let payloads: Payload[];
    try {
      const parsed = JSON.parse(body) as unknown;
      payloads = Payloads.fromObject(parsed as object).payloads as Payload[];
    } catch (error) {
      return reply(response, 400, {
        message: `expected { "payloads": [...] } in proto3 JSON: ${(error as Error).message}`,
      });
    }
    let out = payloads;
    if (route === 'decode') for (const codec of [...options.codecs].reverse()) out = await codec.decode(out);
    else for (const codec of options.codecs) out = await codec.encode(out);
    reply(response, 200, Payloads.toObject(Payloads.create({ payloads: out }), { bytes: String }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8888, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function matches(header: string | undefined, expected: Buffer): boolean {
  if (!header) return false;
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
