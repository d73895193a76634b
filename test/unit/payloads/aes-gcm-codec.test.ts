import { describe, expect, it } from 'vitest';
import { AesGcmCodec, PayloadKeyError } from '../../../payloads/aes-gcm-codec.js';
import { containsText, fromPayload, key, metadataOf, toPayload } from './helpers.js';

const K1 = key('k1');
const K2 = key('k2');
const SECRET = 'the customer prompt: ship 40 crates to Oslo';

describe('the AES-256-GCM payload codec', () => {
  it('encrypts the whole payload, names its key, and decrypts it back', async () => {
    const codec = new AesGcmCodec([K1]);
    const [encrypted] = await codec.encode([toPayload({ prompt: SECRET })]);
    expect(metadataOf(encrypted, 'encoding')).toBe('binary/encrypted');
    expect(metadataOf(encrypted, 'encryption-key-id')).toBe('k1');
    expect(containsText(encrypted?.data, SECRET)).toBe(false);
    expect(containsText(encrypted?.data, 'json/plain')).toBe(false); // the metadata is inside the ciphertext
    const [decrypted] = await codec.decode([encrypted!]);
    expect(fromPayload(decrypted)).toEqual({ prompt: SECRET });
    expect(metadataOf(decrypted, 'encoding')).toBe('json/plain');
  });

  it('gives the same value a different ciphertext each time (a fresh IV per payload)', async () => {
    const codec = new AesGcmCodec([K1]);
    const [a, b] = await codec.encode([toPayload(SECRET), toPayload(SECRET)]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('rotates: the new key encrypts, the old one still decrypts what it wrote', async () => {
    const before = new AesGcmCodec([K1]);
    const after = new AesGcmCodec([K2, K1]);
    const [old] = await before.encode([toPayload('written before the rotation')]);
    const [fresh] = await after.encode([toPayload('written after')]);
    expect(metadataOf(fresh, 'encryption-key-id')).toBe('k2');
    const decoded = await after.decode([old!, fresh!]);
    expect(decoded.map((p) => fromPayload(p))).toEqual(['written before the rotation', 'written after']);
  });

  it('refuses a payload whose key is not loaded, naming the key id and how to supply it', async () => {
    const [payload] = await new AesGcmCodec([K1]).encode([toPayload(SECRET)]);
    const decode = () => new AesGcmCodec([K2]).decode([payload!]);
    await expect(decode()).rejects.toThrow(PayloadKeyError);
    await expect(decode()).rejects.toThrow(
      /encrypted with key id "k1", and the loaded keys are "k2".*MODEL_RETRY_CODEC_KEYS.*MODEL_RETRY_CODEC_KEYS_FILE/,
    );
  });

  it('refuses an altered payload and a key id with other key material', async () => {
    const codec = new AesGcmCodec([K1]);
    const [payload] = await codec.encode([toPayload(SECRET)]);
    const altered = { ...payload!, data: Uint8Array.from(payload!.data!) };
    altered.data[20] = (altered.data[20] ?? 0) ^ 1;
    await expect(codec.decode([altered])).rejects.toThrow(/does not decrypt with the loaded key of that id/);
    const impostor = new AesGcmCodec([{ id: 'k1', key: K2.key }]);
    await expect(impostor.decode([payload!])).rejects.toThrow(/key id "k1" does not decrypt/);
  });

  it('passes payloads that are not encrypted through decode (histories from before the codec)', async () => {
    const plain = toPayload({ prompt: 'from before' });
    const [decoded] = await new AesGcmCodec([K1]).decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('needs at least one key of 32 bytes', () => {
    expect(() => new AesGcmCodec([])).toThrow(/at least one key/);
    expect(() => new AesGcmCodec([{ id: 'short', key: new Uint8Array(16) }])).toThrow(
      /"short" must be 32 bytes/,
    );
  });
});
