import { readFileSync } from 'node:fs';
import { ConfigError } from '../common/config-error.js';

/** The variable that holds the payload encryption keys: `ID:BASE64KEY[,ID:BASE64KEY...]`, the first encrypts. */
export const CODEC_KEYS_ENV = 'MODEL_RETRY_CODEC_KEYS';
/** The variable that names a file holding the keys in the same form (one per line allowed, `#` comments). */
export const CODEC_KEYS_FILE_ENV = 'MODEL_RETRY_CODEC_KEYS_FILE';

/** One AES-256 key and the id that names it in every payload it encrypts. */
export interface CodecKey {
  /** Written into each encrypted payload's metadata (`encryption-key-id`); letters, digits, `.`, `_`, `-`. */
  readonly id: string;
  /** 32 bytes. Never logged, never put into a payload. */
  readonly key: Uint8Array;
}

const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HOW_TO_MAKE =
  'Make a key with `openssl rand -base64 32` and give it as ID:KEY, e.g. k2026-01:<the 44 characters>.';

/**
 * Parses keys written as `ID:BASE64KEY`, separated by commas, spaces or new lines (`#` starts a comment line).
 * The first key encrypts; all of them decrypt. `source` names the variable or file in every error, and no error
 * ever contains key material.
 * @throws ConfigError naming `source`, the entry and the fix.
 */
export function parseCodecKeys(text: string, source: string): CodecKey[] {
  const entries = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join(',')
    .split(/[\s,]+/)
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new ConfigError(`${source} is set but holds no key. ${HOW_TO_MAKE}`);
  const keys: CodecKey[] = [];
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const position = `entry ${index + 1}`;
    if (colon < 0)
      throw new ConfigError(`${source}: ${position} has no key id; entries are ID:BASE64KEY. ${HOW_TO_MAKE}`);
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id))
      throw new ConfigError(
        `${source}: ${position} has the key id ${JSON.stringify(id.slice(0, 70))}; a key id is 1 to 64 letters, ` +
          'digits, ".", "_" or "-", starting with a letter or digit.',
      );
    if (keys.some((k) => k.id === id))
      throw new ConfigError(`${source}: the key id "${id}" appears twice; give each key its own id.`);
    if (!BASE64.test(encoded))
      throw new ConfigError(`${source}: the key "${id}" is not base64. ${HOW_TO_MAKE}`);
    const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== 32)
      throw new ConfigError(
        `${source}: the key "${id}" is ${key.length} bytes; AES-256 needs exactly 32 random bytes. ${HOW_TO_MAKE}`,
      );
    keys.push({ id, key: new Uint8Array(key) });
  });
  return keys;
}

/**
 * The keys from `MODEL_RETRY_CODEC_KEYS`, or from the file named by `MODEL_RETRY_CODEC_KEYS_FILE`; `undefined`
 * when neither is set (payloads are then not encrypted).
 * @throws ConfigError when both are set, the file cannot be read, or a key is malformed.
 */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKey[] | undefined {
  const inline = env[CODEC_KEYS_ENV];
  const file = env[CODEC_KEYS_FILE_ENV];
  const hasInline = inline !== undefined && inline !== '';
  const hasFile = file !== undefined && file !== '';
  if (hasInline && hasFile)
    throw new ConfigError(
      `both ${CODEC_KEYS_ENV} and ${CODEC_KEYS_FILE_ENV} are set: give the keys one way only (unset the other).`,
    );
  if (hasInline) return parseCodecKeys(inline, CODEC_KEYS_ENV);
  if (!hasFile) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${CODEC_KEYS_FILE_ENV} names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ` +
        'point it at a readable file of ID:BASE64KEY lines.',
    );
  }
  return parseCodecKeys(text, `${CODEC_KEYS_FILE_ENV} (${file})`);
}
