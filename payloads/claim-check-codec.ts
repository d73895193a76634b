import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { ValueError } from '@temporalio/common';
import protoPackage from '@temporalio/proto';
import { ConfigError } from '../common/config-error.js';
import { DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES } from '../common/worker-config.js';
import { isJsonPath, largeStrings, setAt } from './claim-paths.js';
import type { JsonPath } from './claim-paths.js';
import { TextCache } from './text-cache.js';
import type { PayloadStore } from './payload-store.js';

const ProtoPayload = protoPackage.temporal.api.common.v1.Payload;

/** `encoding` of a JSON payload some of whose strings were moved to the payload store. */
export const CLAIM_ENCODING = 'json/claim-check';
/** Metadata key of such a payload: JSON `[{ p: path, n: name, b: bytes }]`, one entry per moved string. */
export const CLAIMS_METADATA = 'model-retry-claims';
/** Strings longer than this (UTF-8 bytes) go to the store by default (workflows assume it of older workers). */
export const DEFAULT_CLAIM_THRESHOLD_BYTES = DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES;
/**
 * How old a stored text may get before a payload that references it again refreshes it (touches it, or writes it
 * again): a day. Every object a history refers to was therefore modified at most this long before that history
 * was written, so a sweep that deletes objects untouched for longer than the retention plus this (and the longest
 * a workflow stays open) keeps every object a history still reads.
 */
export const DEFAULT_TOUCH_AFTER_MS = 24 * 60 * 60 * 1000;
/** The variable naming the payload store; errors about a missing store name it. */
export const PAYLOAD_STORE_ENV = 'MODEL_RETRY_PAYLOAD_STORE';

const JSON_ENCODING = 'json/plain';
const utf8 = new TextEncoder();
const text = new TextDecoder();

/** Options of `ClaimCheckCodec`. */
export interface ClaimCheckOptions {
  store: PayloadStore;
  /** A string whose UTF-8 is longer than this many bytes is stored and referenced. @default 2048 */
  thresholdBytes?: number;
  /**
   * Codecs every stored text passes through before it is written (the encryption codec), so the store holds no
   * clear text. Texts are read back through them in reverse.
   */
  blobCodecs?: readonly PayloadCodec[];
  /**
   * First segment of new objects' names: `plain`, or `key-<id>` for texts sealed under key `<id>`. Names are
   * `<group>/<first two hex digits>/<sha256 of the text>`, so a text is stored once per group, and a new key
   * starts a new group (texts sealed under a retired key are never reused).
   * @default 'plain'
   */
  group?: string;
  /** Bytes of texts kept in memory after a read or a write. @default 64 MiB */
  cacheBytes?: number;
  /**
   * A stored text referenced again once its object is this old is refreshed (see {@link DEFAULT_TOUCH_AFTER_MS}).
   * @default 86400000 (a day)
   */
  touchAfterMs?: number;
  /** The time now, in milliseconds since 1970 (tests let days pass). @default Date.now */
  clock?: () => number;
}

interface Claim {
  p: JsonPath;
  n: string;
  b: number;
}

/**
 * A claim-check `PayloadCodec`: in each JSON payload, every string over the threshold is written to a
 * content-addressed store (named by its SHA-256) and replaced by its name; the payload's encoding becomes
 * `json/claim-check` and its metadata lists where the names are. The same prompt repeated in every attempt's
 * input is therefore stored once, and the history carries a reference of a hundred bytes instead. `decode`
 * puts the texts back (checking each against its hash). Put it before the encryption codec in
 * `payloadCodecs`, so what it leaves in the payload is encrypted too.
 */
export class ClaimCheckCodec implements PayloadCodec {
  readonly store: PayloadStore;
  readonly thresholdBytes: number;
  private readonly blobCodecs: readonly PayloadCodec[];
  private readonly group: string;
  private readonly cache: TextCache;
  private readonly touchAfterMs: number;
  private readonly clock: () => number;
  /**
   * Names this process wrote or saw in the store, with the object's last-modified time as it last knew it: a
   * name referenced again within `touchAfterMs` of that is not asked for again.
   */
  private readonly fresh = new Map<string, number>();

  constructor(options: ClaimCheckOptions) {
    this.store = options.store;
    this.thresholdBytes = options.thresholdBytes ?? DEFAULT_CLAIM_THRESHOLD_BYTES;
    if (!Number.isInteger(this.thresholdBytes) || this.thresholdBytes < 1)
      throw new ValueError('ClaimCheckCodec.thresholdBytes must be a positive integer');
    this.blobCodecs = options.blobCodecs ?? [];
    this.group = options.group ?? 'plain';
    this.cache = new TextCache(options.cacheBytes ?? 64 * 1024 * 1024);
    this.touchAfterMs = options.touchAfterMs ?? DEFAULT_TOUCH_AFTER_MS;
    if (!(this.touchAfterMs >= 0)) throw new ValueError('ClaimCheckCodec.touchAfterMs must be 0 or more');
    this.clock = options.clock ?? Date.now;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const out: Payload[] = [];
    for (const payload of payloads) out.push(await this.claim(payload));
    return out;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const out: Payload[] = [];
    for (const payload of payloads) out.push(await this.resolve(payload));
    return out;
  }

  private async claim(payload: Payload): Promise<Payload> {
    if (encodingOf(payload) !== JSON_ENCODING || (payload.data?.length ?? 0) <= this.thresholdBytes)
      return payload;
    let value: unknown = JSON.parse(text.decode(payload.data ?? new Uint8Array()));
    const found = largeStrings(value, this.thresholdBytes);
    if (found.length === 0) return payload;
    const names = new Map<string, string>();
    for (const { text: t } of found) if (!names.has(t)) names.set(t, this.nameOf(t));
    await Promise.all([...names].map(([t, name]) => this.keep(name, t)));
    const claims: Claim[] = [];
    for (const { path, text: t } of found) {
      const name = names.get(t) as string;
      claims.push({ p: path, n: name, b: Buffer.byteLength(t) });
      value = setAt(value, path, name);
    }
    return {
      metadata: {
        ...payload.metadata,
        encoding: utf8.encode(CLAIM_ENCODING),
        [CLAIMS_METADATA]: utf8.encode(JSON.stringify(claims)),
      },
      data: utf8.encode(JSON.stringify(value)),
    };
  }

  private async resolve(payload: Payload): Promise<Payload> {
    if (encodingOf(payload) !== CLAIM_ENCODING) return payload;
    const { [CLAIMS_METADATA]: rawClaims, ...metadata } = payload.metadata ?? {};
    const claims = parseClaims(rawClaims);
    const texts = new Map<string, string>();
    await Promise.all(
      [...new Set(claims.map((c) => c.n))].map(async (name) => texts.set(name, await this.fetch(name))),
    );
    let value: unknown = JSON.parse(text.decode(payload.data ?? new Uint8Array()));
    for (const claim of claims) value = setAt(value, claim.p, texts.get(claim.n));
    return {
      metadata: { ...metadata, encoding: utf8.encode(JSON_ENCODING) },
      data: utf8.encode(JSON.stringify(value)),
    };
  }

  private nameOf(t: string): string {
    const hex = createHash('sha256').update(t, 'utf8').digest('hex');
    return `${this.group}/${hex.slice(0, 2)}/${hex}`;
  }

  /**
   * Writes `t` under `name` unless the store has it, and refreshes an object that a new payload references once
   * it is older than `touchAfterMs`: content-named objects are never rewritten otherwise, so a prompt shared for
   * months would keep its first write time and a sweep by age would delete it under histories still using it.
   * Only writers refresh (decoding never writes: the codec endpoint and `history` may hold read-only access).
   */
  private async keep(name: string, t: string): Promise<void> {
    const now = this.clock();
    const seen = this.fresh.get(name);
    if (seen !== undefined && now - seen < this.touchAfterMs) {
      this.cache.set(name, t);
      return;
    }
    const at = await this.modifiedAt(name);
    if (at !== undefined && now - at < this.touchAfterMs) {
      this.remember(name, t, at);
      return;
    }
    // Absent, or old: touched where the store can, written (again) otherwise. A write is always safe: the name
    // means this text, and a reader sees the old bytes or the new ones whole.
    if (at === undefined || !(await this.store.touch?.(name))) await this.write(name, t);
    this.remember(name, t, now);
  }

  /** The object's last-modified time; a store that cannot say reads as "held, age unknown" (written again). */
  private async modifiedAt(name: string): Promise<number | undefined> {
    if (this.store.modifiedAt) return this.store.modifiedAt(name);
    return (await this.store.has(name)) ? Number.NEGATIVE_INFINITY : undefined;
  }

  private async write(name: string, t: string): Promise<void> {
    let sealed: Payload[] = [{ metadata: { encoding: utf8.encode('binary/plain') }, data: utf8.encode(t) }];
    for (const codec of this.blobCodecs) sealed = await codec.encode(sealed);
    await this.store.put(name, ProtoPayload.encode(sealed[0] as Payload).finish());
  }

  private async fetch(name: string): Promise<string> {
    const cached = this.cache.get(name);
    if (cached !== undefined) return cached;
    const bytes = await this.store.get(name);
    if (!bytes)
      throw new ConfigError(
        `a payload refers to "${name}", which is not in the payload store (${this.store.description}): point ` +
          `${PAYLOAD_STORE_ENV} at the store the payload was written to.`,
      );
    let opened: Payload[] = [ProtoPayload.decode(bytes) as Payload];
    for (const codec of [...this.blobCodecs].reverse()) opened = await codec.decode(opened);
    const data = opened[0]?.data ?? new Uint8Array();
    const hex = name.slice(name.lastIndexOf('/') + 1);
    if (createHash('sha256').update(data).digest('hex') !== hex)
      throw new ValueError(
        `the payload store's object "${name}" does not match its hash: it was altered or corrupted`,
      );
    const t = text.decode(data);
    this.cache.set(name, t);
    return t;
  }

  private remember(name: string, t: string, modifiedAt: number): void {
    if (this.fresh.size >= 100_000) this.fresh.clear();
    this.fresh.set(name, modifiedAt);
    this.cache.set(name, t);
  }
}

function encodingOf(payload: Payload): string | undefined {
  const raw = payload.metadata?.encoding;
  return raw ? text.decode(raw) : undefined;
}

function parseClaims(raw: Uint8Array | null | undefined): Claim[] {
  let claims: unknown;
  try {
    claims = JSON.parse(text.decode(raw ?? new Uint8Array()));
  } catch {
    claims = undefined;
  }
  if (
    !Array.isArray(claims) ||
    !claims.every(
      (c: Partial<Claim> | null) =>
        c !== null &&
        typeof c === 'object' &&
        isJsonPath(c.p) &&
        typeof c.n === 'string' &&
        typeof c.b === 'number',
    )
  )
    throw new ValueError(`a ${CLAIM_ENCODING} payload has no readable ${CLAIMS_METADATA} metadata`);
  return claims as Claim[];
}
