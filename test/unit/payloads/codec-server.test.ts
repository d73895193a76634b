import type { Payload } from '@temporalio/common';
import protoPackage from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../../payloads/aes-gcm-codec.js';
import { startCodecServer } from '../../../payloads/codec-server.js';
import type { CodecServer } from '../../../payloads/codec-server.js';
import { createDataConverter } from '../../../payloads/data-converter.js';
import { fromPayload, key, metadataOf, toPayload } from './helpers.js';

const Payloads = protoPackage.temporal.api.common.v1.Payloads;
const K1 = key('k1');
const UI = 'http://localhost:8233';
const TOKEN = 'codec-endpoint-token-for-tests';

/** Payloads as the Temporal UI sends them: proto3 JSON, bytes in base64. */
const wire = (payloads: Payload[]) =>
  JSON.stringify(Payloads.toObject(Payloads.create({ payloads }), { bytes: String }));
const unwire = (body: string) => Payloads.fromObject(JSON.parse(body) as object).payloads as Payload[];

describe('the codec endpoint', () => {
  let server: CodecServer;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    });

  beforeAll(async () => {
    server = await startCodecServer({
      codecs: createDataConverter({ codecKeys: [K1] }).payloadCodecs ?? [],
      port: 0,
      origins: [UI],
      token: TOKEN,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('decodes what the worker encrypted, as proto3 JSON, also under a namespace segment', async () => {
    const encrypted = await new AesGcmCodec([K1]).encode([toPayload({ prompt: 'hello' }), toPayload(42)]);
    for (const path of ['/decode', '/default/decode']) {
      const response = await post(path, wire(encrypted), { 'x-namespace': 'default' });
      expect(response.status).toBe(200);
      const decoded = unwire(await response.text());
      expect(decoded.map((p) => fromPayload(p))).toEqual([{ prompt: 'hello' }, 42]);
    }
  });

  it('encodes what the UI sends, so that the worker can read it', async () => {
    const response = await post('/encode', wire([toPayload('from the UI')]));
    const [encoded] = unwire(await response.text());
    expect(metadataOf(encoded, 'encoding')).toBe('binary/encrypted');
    const [decoded] = await new AesGcmCodec([K1]).decode([encoded!]);
    expect(fromPayload(decoded)).toBe('from the UI');
  });

  it('answers CORS preflights from the UI origin only, with credentials allowed', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace,authorization',
        },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/X-Namespace.*Authorization/);
    const other = await preflight('http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('requires the bearer token when one is configured', async () => {
    const body = wire([toPayload('x')]);
    expect((await post('/decode', body, { authorization: '' })).status).toBe(401);
    expect((await post('/decode', body, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('/decode', body)).status).toBe(200);
  });

  it('refuses what is not the protocol, and names a missing key id', async () => {
    expect((await post('/metrics', '{}')).status).toBe(404);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    const bad = await post('/decode', 'not json');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/expected \{ \\"payloads\\": \[...\] \} in proto3 JSON/);
    const foreign = await new AesGcmCodec([key('k9')]).encode([toPayload('x')]);
    const unknown = await post('/decode', wire(foreign));
    expect(unknown.status).toBe(500);
    expect(await unknown.text()).toMatch(/encrypted with key id \\"k9\\"/);
  });
});
