import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64ToVector, vectorToBase64, vectorWireBytes } from '../../../common/embedding.js';
import { base64ToBytes, bytesToBase64 } from '../../../common/request.js';

describe('base64 without Buffer (the workflow sandbox has none)', () => {
  it('decodes what it encodes, and agrees with Node on every byte string', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = bytesToBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(base64ToBytes(text)).toEqual(bytes);
        expect(base64ToBytes(text.replace(/=+$/, ''))).toEqual(bytes);
      }),
    );
  });

  it.each([
    ['a character outside the alphabet', 'ab$d', /not base64: "\$"/],
    ['a length no base64 string has', 'abcde', /not base64: a length of 5/],
    ['the URL-safe alphabet', 'ab-_', /not base64/],
  ])('refuses %s', (_what, text, error) => {
    expect(() => base64ToBytes(text)).toThrow(error);
  });
});

describe('an embedding vector on the wire: base64 of Float32, little-endian', () => {
  it('round-trips every vector to its Float32 numbers, as Node writes a Float32Array', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { maxLength: 64 }), (vector) => {
        const text = vectorToBase64(vector);
        expect(text).toBe(Buffer.from(new Float32Array(vector).buffer).toString('base64'));
        expect(base64ToVector(text)).toEqual(vector.map(Math.fround));
      }),
    );
  });

  it('keeps any double at its nearest Float32', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 16 }), (vector) => {
        expect(base64ToVector(vectorToBase64(vector))).toEqual(vector.map(Math.fround));
      }),
    );
  });

  it('refuses bytes that are not a whole number of floats', () => {
    expect(() => base64ToVector(bytesToBase64(new Uint8Array([1, 2, 3])))).toThrow(
      /not a whole number of 32-bit floats/,
    );
  });

  it('says how many JSON bytes a vector takes in a result', () => {
    for (const dimensions of [1, 2, 3, 8, 1536, 3072]) {
      expect(vectorWireBytes(dimensions)).toBe(
        JSON.stringify(vectorToBase64(new Array(dimensions).fill(0.5))).length + 1,
      );
    }
  });
});
