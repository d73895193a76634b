import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayloadCodec } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../../payloads/aes-gcm-codec.js';
import { ClaimCheckCodec } from '../../../payloads/claim-check-codec.js';
import { createDataConverter } from '../../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../../payloads/payload-store.js';
import type { PayloadStore } from '../../../payloads/payload-store.js';
import { containsText, fromPayload, key, metadataOf, toPayload } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'model-retry-claims-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function freshStore() {
  n += 1;
  return new FolderPayloadStore(join(root, `store-${n}`));
}

const PROMPT = `You are reviewing a contract. ${'Clause 7 says the supplier pays. '.repeat(200)}`;
const attemptInput = (attempt: number) => ({
  callId: 'c1',
  attempt,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: PROMPT },
  ],
});

describe('the claim-check codec', () => {
  it('leaves payloads without a string over the threshold exactly as they were', async () => {
    const codec = new ClaimCheckCodec({ store: freshStore(), thresholdBytes: 1024 });
    const small = toPayload({ prompt: 'short', many: Array.from({ length: 100 }, (_, i) => `item ${i}`) });
    const binary = {
      metadata: { encoding: new TextEncoder().encode('binary/plain') },
      data: new Uint8Array(5000),
    };
    expect(await codec.encode([small, binary])).toEqual([small, binary]);
  });

  it('moves a large string to the store and puts it back on decode', async () => {
    const store = freshStore();
    const codec = new ClaimCheckCodec({ store, thresholdBytes: 1024 });
    const [claimed] = await codec.encode([toPayload(attemptInput(1))]);
    expect(metadataOf(claimed, 'encoding')).toBe('json/claim-check');
    expect(containsText(claimed?.data, 'Clause 7')).toBe(false);
    expect(claimed!.data!.length).toBeLessThan(300);
    const names = await store.list();
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^plain\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    expect(JSON.parse(metadataOf(claimed, 'model-retry-claims') ?? '')).toEqual([
      { p: ['messages', 1, 'content'], n: names[0], b: Buffer.byteLength(PROMPT) },
    ]);
    // Another process (no cache) reads it back from the store.
    const [decoded] = await new ClaimCheckCodec({ store, thresholdBytes: 1024 }).decode([claimed!]);
    expect(metadataOf(decoded, 'encoding')).toBe('json/plain');
    expect(metadataOf(decoded, 'model-retry-claims')).toBeUndefined();
    expect(fromPayload(decoded)).toEqual(attemptInput(1));
  });

  it('stores a prompt repeated in every attempt once', async () => {
    const store = freshStore();
    const codec = new ClaimCheckCodec({ store, thresholdBytes: 1024 });
    for (let attempt = 1; attempt <= 5; attempt++) await codec.encode([toPayload(attemptInput(attempt))]);
    await new ClaimCheckCodec({ store, thresholdBytes: 1024 }).encode([toPayload({ again: PROMPT })]);
    expect(await store.list()).toHaveLength(1);
  });

  it('handles a top-level string, repeated strings, multi-byte text at the byte threshold and a "__proto__" key', async () => {
    const codec = new ClaimCheckCodec({ store: freshStore(), thresholdBytes: 300 });
    const accented = 'é'.repeat(151); // 151 characters, 302 bytes: over a threshold of 300 bytes
    const justUnder = 'é'.repeat(150); // 300 bytes: stays
    const value = JSON.parse(
      JSON.stringify({ a: accented, b: [accented, justUnder], c: { x: 1 } }).replace('"c"', '"__proto__"'),
    ) as unknown;
    const encoded = await codec.encode([toPayload(PROMPT), toPayload(value)]);
    expect(JSON.parse(new TextDecoder().decode(encoded[0]?.data ?? new Uint8Array())) as string).toMatch(
      /^plain\/[0-9a-f]{2}\/[0-9a-f]{64}$/,
    );
    expect(JSON.parse(metadataOf(encoded[1], 'model-retry-claims') ?? '')).toHaveLength(2);
    const decoded = await codec.decode(encoded);
    expect(fromPayload(decoded[0])).toBe(PROMPT);
    expect(JSON.stringify(fromPayload(decoded[1]))).toBe(JSON.stringify(value));
    expect(Object.getPrototypeOf(fromPayload(decoded[1]))).toBe(Object.prototype);
  });

  it('fails clearly when the store does not have the text, or holds something else under its name', async () => {
    const store = freshStore();
    const [claimed] = await new ClaimCheckCodec({ store, thresholdBytes: 1024 }).encode([
      toPayload(attemptInput(1)),
    ]);
    const elsewhere = new ClaimCheckCodec({ store: freshStore(), thresholdBytes: 1024 });
    await expect(elsewhere.decode([claimed!])).rejects.toThrow(
      /which is not in the payload store \(folder .*store-\d+\): point MODEL_RETRY_PAYLOAD_STORE at the store/,
    );
    const [name] = await store.list();
    const file = join(store.root, ...(name ?? '').split('/'));
    writeFileSync(file, readFileSync(file).toString('latin1').replace('Clause 7', 'Clause 8'), 'latin1');
    await expect(new ClaimCheckCodec({ store, thresholdBytes: 1024 }).decode([claimed!])).rejects.toThrow(
      /does not match its hash: it was altered or corrupted/,
    );
  });

  it('seals stored texts with the encryption codec, one group per key, so a retired key is never reused', async () => {
    const store = freshStore();
    const k1 = key('k1');
    const k2 = key('k2');
    const chain = (keys: ReturnType<typeof key>[]): PayloadCodec => {
      const aes = new AesGcmCodec(keys);
      return new ClaimCheckCodec({
        store,
        thresholdBytes: 1024,
        blobCodecs: [aes],
        group: `key-${aes.keyId}`,
      });
    };
    const [before] = await chain([k1]).encode([toPayload(attemptInput(1))]);
    const [after] = await chain([k2, k1]).encode([toPayload(attemptInput(2))]);
    const names = await store.list();
    expect(names.map((name) => name.split('/')[0])).toEqual(['key-k1', 'key-k2']);
    for (const name of names) expect(containsText(await store.get(name), 'Clause 7')).toBe(false);
    const reader = chain([k2, k1]);
    expect((await reader.decode([before!, after!])).map((p) => fromPayload(p))).toEqual([
      attemptInput(1),
      attemptInput(2),
    ]);
    await expect(chain([k2]).decode([before!])).rejects.toThrow(/encrypted with key id "k1"/);
  });

  it('refreshes an object referenced again once it is a day old, at most once a day, and never on decode', async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const folder = freshStore();
    // A store of the user's own with only has/put/get/list: refreshed by writing the sealed text again.
    const calls: string[] = [];
    const store: PayloadStore = {
      description: 'counting',
      has: (name) => (calls.push('has'), folder.has(name)),
      put: (name, bytes) => (calls.push('put'), folder.put(name, bytes)),
      get: (name) => (calls.push('get'), folder.get(name)),
      list: () => folder.list(),
    };
    let now = Date.now();
    const aes = new AesGcmCodec([key('k1')]);
    const codec = new ClaimCheckCodec({
      store,
      thresholdBytes: 1024,
      blobCodecs: [aes],
      group: 'key-k1',
      clock: () => now,
    });
    const [first] = await codec.encode([toPayload(attemptInput(1))]);
    expect(calls).toEqual(['has', 'put']);
    const [name] = await folder.list();
    const sealed = await folder.get(name!);
    now += DAY - 1;
    await codec.encode([toPayload(attemptInput(2))]);
    expect(calls).toEqual(['has', 'put']); // within the day: not asked again
    now += 1;
    await codec.encode([toPayload(attemptInput(3))]);
    await codec.encode([toPayload(attemptInput(4))]);
    expect(calls).toEqual(['has', 'put', 'has', 'put']); // a day on: written again, once
    expect(Buffer.from((await folder.get(name!))!).equals(Buffer.from(sealed!))).toBe(false);
    // The rewritten object is the same text (sealed anew) and reads back; a reader never writes.
    calls.length = 0;
    now += 10 * DAY;
    const reader = new ClaimCheckCodec({ store, blobCodecs: [aes], group: 'key-k1', clock: () => now });
    expect(fromPayload((await reader.decode([first!]))[0])).toEqual(attemptInput(1));
    expect(calls).toEqual(['get']);
    // The folder store touches in place (its bytes stay) once the object is older than the interval.
    const touching = new ClaimCheckCodec({
      store: folder,
      thresholdBytes: 1024,
      blobCodecs: [aes],
      group: 'key-k1',
    });
    const before = await folder.get(name!);
    const old = new Date(Date.now() - 2 * DAY);
    utimesSync(join(folder.root, ...name!.split('/')), old, old);
    await touching.encode([toPayload(attemptInput(5))]);
    expect(await folder.modifiedAt(name!)).toBeGreaterThan(Date.now() - DAY);
    expect(Buffer.from((await folder.get(name!))!).equals(Buffer.from(before!))).toBe(true);
  });
});

describe('the data converter without a store or keys', () => {
  it('names the missing setting when a payload needs the store or a key', async () => {
    const [guard] = createDataConverter({}).payloadCodecs ?? [];
    const [claimed] = await new ClaimCheckCodec({ store: freshStore(), thresholdBytes: 1024 }).encode([
      toPayload(attemptInput(1)),
    ]);
    await expect(guard!.decode([claimed!])).rejects.toThrow(
      /refers to texts kept in a payload store, and no store is configured: set MODEL_RETRY_PAYLOAD_STORE/,
    );
    const [encrypted] = await new AesGcmCodec([key('k7')]).encode([toPayload('x')]);
    await expect(guard!.decode([encrypted!])).rejects.toThrow(
      /encrypted with key id "k7", and no key is loaded.*MODEL_RETRY_CODEC_KEYS/,
    );
    expect(await guard!.decode([toPayload('plain')])).toEqual([toPayload('plain')]);
  });
});
