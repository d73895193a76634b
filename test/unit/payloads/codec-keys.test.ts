import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-error.js';
import { codecKeysFromEnv, parseCodecKeys } from '../../../payloads/codec-keys.js';
import { key, keyEntry } from './helpers.js';

const K1 = key('k1');
const K2 = key('k2');
const dir = mkdtempSync(join(tmpdir(), 'model-retry-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('payload encryption keys', () => {
  it('are read as ID:BASE64 entries, the first one encrypting, in the order given', () => {
    const keys = parseCodecKeys(`${keyEntry(K2)}, ${keyEntry(K1)}`, 'X');
    expect(keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(Buffer.from(keys[0]?.key ?? []).equals(Buffer.from(K2.key))).toBe(true);
  });

  it('accept URL-safe base64 and unpadded keys, and a file with comments and one key per line', () => {
    const urlSafe = `k1:${Buffer.from(K1.key).toString('base64url')}`;
    expect(parseCodecKeys(urlSafe, 'X')[0]?.key).toEqual(K1.key);
    const file = join(dir, 'keys');
    writeFileSync(
      file,
      `# current\n${keyEntry(K2)}\n\n# old, kept to read older histories\n${keyEntry(K1)}\n`,
    );
    expect(codecKeysFromEnv({ MODEL_RETRY_CODEC_KEYS_FILE: file })?.map((k) => k.id)).toEqual(['k2', 'k1']);
  });

  it('are absent when neither variable is set', () => {
    expect(codecKeysFromEnv({})).toBeUndefined();
    expect(codecKeysFromEnv({ MODEL_RETRY_CODEC_KEYS: '' })).toBeUndefined();
  });

  it.each([
    [
      'a key of the wrong length',
      `k1:${Buffer.alloc(16).toString('base64')}`,
      /the key "k1" is 16 bytes; AES-256 needs exactly 32.*openssl rand -base64 32/,
    ],
    ['a key that is not base64', 'k1:not*base64!', /the key "k1" is not base64.*openssl rand -base64 32/],
    [
      'an entry without an id',
      Buffer.from(K1.key).toString('base64'),
      /entry 1 has no key id; entries are ID:BASE64KEY/,
    ],
    ['an id with a slash', `a/b:${Buffer.from(K1.key).toString('base64')}`, /entry 1 has the key id "a\/b"/],
    [
      'the same id twice',
      `${keyEntry(K1)},k1:${Buffer.from(K2.key).toString('base64')}`,
      /the key id "k1" appears twice/,
    ],
    ['nothing but separators', ' , ', /is set but holds no key/],
  ])('refuse %s, naming the variable and the fix', (_what, value, message) => {
    const read = () => codecKeysFromEnv({ MODEL_RETRY_CODEC_KEYS: value });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/^MODEL_RETRY_CODEC_KEYS/);
    expect(read).toThrow(message);
  });

  it('never put key material into an error', () => {
    const secret = Buffer.alloc(31, 7).toString('base64');
    expect(() => parseCodecKeys(`k1:${secret}`, 'X')).toThrow(ConfigError);
    try {
      parseCodecKeys(`k1:${secret}`, 'X');
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
  });

  it('refuse both variables at once, and a file that cannot be read', () => {
    const both = { MODEL_RETRY_CODEC_KEYS: keyEntry(K1), MODEL_RETRY_CODEC_KEYS_FILE: '/x' };
    expect(() => codecKeysFromEnv(both)).toThrow(
      /both MODEL_RETRY_CODEC_KEYS and MODEL_RETRY_CODEC_KEYS_FILE/,
    );
    const missing = join(dir, 'no-such-file');
    expect(() => codecKeysFromEnv({ MODEL_RETRY_CODEC_KEYS_FILE: missing })).toThrow(
      new RegExp(`MODEL_RETRY_CODEC_KEYS_FILE names ${missing}, which cannot be read \\(ENOENT\\)`),
    );
  });
});
