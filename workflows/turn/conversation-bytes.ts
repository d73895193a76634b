import { jsonBytes } from '../../common/turn-input.js';

/**
 * The UTF-8 JSON bytes of an object whose members' values measure `parts` (name, bytes), in that order: what
 * `jsonBytes` says of the object itself, since `JSON.stringify` writes an object as its members' texts joined,
 * without spaces. Lets a caller measure each part once and add them up, instead of serializing the whole again.
 */
export function objectBytes(parts: readonly (readonly [string, number])[]): number {
  if (parts.length === 0) return 2;
  let bytes = 2 + (parts.length - 1);
  for (const [name, valueBytes] of parts) bytes += jsonBytes(name) + 1 + valueBytes;
  return bytes;
}

/**
 * The UTF-8 JSON bytes of a conversation that grows at its end (an agent turn's messages), counted as it grows:
 * each message is serialized once, when first seen, not again at every step (which made a long turn's steps
 * quadratic in its length). The messages are compared by identity with the ones counted before: a list changed
 * anywhere but at its end is counted again from the first message that differs. A message object must not be
 * changed in place once counted (the turn never does).
 */
export class ConversationBytes {
  private readonly counted: unknown[] = [];
  /** The bytes of each counted message as an array element (`jsonBytes([m]) - 2`). */
  private readonly sizes: number[] = [];
  private sum = 0;

  /** What `jsonBytes(messages)` says, from the messages not counted before. */
  of(messages: readonly unknown[]): number {
    let same = 0;
    const shorter = Math.min(messages.length, this.counted.length);
    while (same < shorter && messages[same] === this.counted[same]) same += 1;
    while (this.counted.length > same) {
      this.counted.pop();
      this.sum -= this.sizes.pop() ?? 0;
    }
    for (let i = same; i < messages.length; i++) {
      const size = jsonBytes([messages[i]]) - 2;
      this.counted.push(messages[i]);
      this.sizes.push(size);
      this.sum += size;
    }
    const n = messages.length;
    return n === 0 ? 2 : 2 + this.sum + (n - 1);
  }
}
