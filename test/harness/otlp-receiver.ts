import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/** One span as received, attributes flattened to plain values (ids as lowercase hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  resource: Record<string, unknown>;
  /** How it arrived: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

/** An OTLP/HTTP traces receiver on loopback: `url` takes what an exporter sends to `/v1/traces`. */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Waits (generously, polling) until `done(spans)` holds; throws with what arrived otherwise. */
  until(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// The OTLP protos as compiled by the exporter's own transformer package (protobufjs static module).
const require = createRequire(import.meta.url);
const { opentelemetry } = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(b: Uint8Array): unknown;
              toObject(m: unknown, o: object): unknown;
            };
          };
        };
      };
    };
  };
};
const Request = opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Starts the receiver on 127.0.0.1 (a free port). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      try {
        const request =
          type === 'application/x-protobuf'
            ? Request.toObject(Request.decode(body), { bytes: String, longs: Number })
            : JSON.parse(body.toString('utf8'));
        spans.push(...flatten(request as OtlpRequest, type));
        res.writeHead(200, { 'content-type': type || 'application/json' });
        res.end(type === 'application/x-protobuf' ? Buffer.alloc(0) : '{}');
      } catch (error) {
        res.writeHead(400);
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    async until(done, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > end) {
          throw new Error(
            `the receiver did not get the spans waited for; it has: ${spans.map((s) => s.name).join(', ')}`,
          );
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      return spans;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttributes;
        events?: { name: string; attributes?: OtlpAttributes }[];
      }[];
    }[];
  }[];
}

function valueOf(v: OtlpValue): unknown {
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.doubleValue ?? v.boolValue;
}

function attributesOf(list: OtlpAttributes): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function flatten(request: OtlpRequest, encoding: string): ReceivedSpan[] {
  // OTLP/JSON writes ids in hex; protobuf bytes come out of protobufjs in base64.
  const id = (raw: string) =>
    encoding === 'application/x-protobuf' ? Buffer.from(raw, 'base64').toString('hex') : raw.toLowerCase();
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: id(s.traceId),
        spanId: id(s.spanId),
        parentSpanId: s.parentSpanId ? id(s.parentSpanId) : undefined,
        name: s.name,
        attributes: attributesOf(s.attributes),
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
        resource: attributesOf(rs.resource?.attributes),
        encoding,
      })),
    ),
  );
}
