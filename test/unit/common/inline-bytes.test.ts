import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../../payloads/aes-gcm-codec.js';
import { ClaimCheckCodec } from '../../../payloads/claim-check-codec.js';
import { payloadBytes } from '../../../payloads/payload-size.js';
import { FolderPayloadStore } from '../../../payloads/payload-store.js';
import { inlineBytes } from '../../../common/inline-bytes.js';
import { key } from '../payloads/helpers.js';

const root = mkdtempSync(join(tmpdir(), 'model-retry-inline-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A request of every kind of string: short and long, ASCII and not, at the byte threshold, deep in the tree. */
const request = {
  prompt: [
    { role: 'system', content: [{ type: 'text', text: 'Be brief. '.repeat(300) }] },
    ...Array.from({ length: 200 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: [{ type: 'text', text: `message ${i}: ${'é'.repeat(i * 7)} "quoted" \n` }],
    })),
    {
      role: 'user',
      content: [
        { type: 'text', text: 'ü'.repeat(1024) },
        { type: 'text', text: 'ü'.repeat(1025) },
      ],
    },
  ],
  tools: [{ name: 'search', description: 'x'.repeat(5000), inputSchema: { type: 'object' } }],
  settings: { maxOutputTokens: 100, temperature: 0.5, stopSequences: ['\u2028', '😀'] },
  weird: { __proto__: 'y'.repeat(4000), '': [null, true, 1.5] },
};

describe('what stays in the payload with a payload store', () => {
  it('is never less than what the claim-check codec leaves (data and claims), and not much more', async () => {
    for (const [threshold, encrypt] of [
      [2048, false],
      [256, true],
    ] as const) {
      const aes = new AesGcmCodec([key('a-key-id-of-some-length')]);
      const codec = new ClaimCheckCodec({
        store: new FolderPayloadStore(join(root, `t${threshold}`)),
        thresholdBytes: threshold,
        ...(encrypt ? { blobCodecs: [aes], group: `key-${aes.keyId}` } : {}),
      });
      const value = JSON.parse(JSON.stringify(request)) as unknown;
      const [claimed] = await codec.encode([defaultPayloadConverter.toPayload(value)]);
      const actual = payloadBytes(claimed!);
      const estimate = inlineBytes(value, threshold);
      expect(estimate).toBeGreaterThanOrEqual(actual - 100); // the payload's own framing is the attempt's room
      const claims = (
        JSON.parse(new TextDecoder().decode(claimed!.metadata!['model-retry-claims'])) as unknown[]
      ).length;
      expect(claims).toBeGreaterThan(3);
      // A name is counted at 100 bytes in the data and in its claim (its group's length is not known here).
      expect(estimate).toBeLessThan(actual + 100 * claims);
    }
  });

  it('is the JSON itself when no string is long enough', () => {
    const small = { a: ['x', 'ü', { b: 1 }], c: null };
    expect(inlineBytes(small, 2048)).toBe(Buffer.byteLength(JSON.stringify(small)));
  });
});
