/**
 * Embedding vectors as they cross Temporal: each vector is the base64 of its numbers as 32-bit floats,
 * little-endian (what providers compute them in), so that a result of many vectors is a few long strings the
 * payload store can move, not a JSON array of numbers four times its size. Safe in the workflow sandbox: no
 * `Buffer`, no `atob`.
 */
import { base64ToBytes, bytesToBase64 } from './request.js';

/** The bytes of one number of a vector on the wire. */
export const FLOAT32_BYTES = 4;

/** A vector as base64 of its Float32 numbers, little-endian (a number that is not a Float32 is rounded to one). */
export function vectorToBase64(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * FLOAT32_BYTES);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * FLOAT32_BYTES, value, true));
  return bytesToBase64(bytes);
}

/**
 * The numbers of a vector sent as base64 Float32 (little-endian).
 * @throws TypeError when `data` is not base64 or not a whole number of Float32s.
 */
export function base64ToVector(data: string): number[] {
  const bytes = base64ToBytes(data);
  if (bytes.length % FLOAT32_BYTES !== 0) {
    throw new TypeError(`an embedding of ${bytes.length} bytes is not a whole number of 32-bit floats`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(bytes.length / FLOAT32_BYTES);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getFloat32(i * FLOAT32_BYTES, true);
  return out;
}

/** The UTF-8 JSON bytes one vector of `dimensions` numbers takes in a result (its base64 string, quoted). */
export function vectorWireBytes(dimensions: number): number {
  return Math.ceil((dimensions * FLOAT32_BYTES) / 3) * 4 + 3;
}
