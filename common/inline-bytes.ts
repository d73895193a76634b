/**
 * What of an attempt's input stays in its payload when the worker's payload store (the claim-check codec) takes
 * every string over its threshold: the JSON with each such string replaced by a reference, plus each reference's
 * entry in the payload's claims metadata (its path, name and length), in UTF-8 bytes. Workflow code cannot run
 * the codec (it hashes and writes), so this is counted here, as the codec would leave it.
 */

/**
 * Room for one object name in the store: `<group>/<xx>/<64 hex digits>`, its group `plain` or `key-<key id>`
 * (a key id of up to about 30 characters).
 */
const NAME_BYTES = 100;
/** A claim entry beside its path: `{"p":,"n":"<name>","b":<length>},`. */
const CLAIM_ENTRY_BYTES = NAME_BYTES + 30;
const REFERENCE = 'r'.repeat(NAME_BYTES);
const NOT_PRINTABLE_ASCII = /[^ -~]/;

export function inlineBytes(value: unknown, thresholdBytes: number): number {
  // The JSON path's bytes of each object or array met, as `JSON.stringify` walks into it (a child is visited
  // with its parent as `this`); the value at the root has none.
  const paths = new Map<object, number>();
  let claims = 0;
  const json = JSON.stringify(value, function (this: unknown, key: string, node: unknown) {
    const parent = paths.get(this as object);
    const keyBytes = Array.isArray(this) ? key.length : utf8Length(JSON.stringify(key));
    const path = parent === undefined ? 0 : parent + (parent > 0 ? 1 : 0) + keyBytes;
    if (typeof node === 'string') {
      // The codec's own test (see `largeStrings`): more than `thresholdBytes` bytes of UTF-8.
      if (
        node.length > thresholdBytes ||
        (node.length * 3 > thresholdBytes && utf8Length(node) > thresholdBytes)
      ) {
        claims += 2 + path + CLAIM_ENTRY_BYTES;
        return REFERENCE;
      }
    } else if (node !== null && typeof node === 'object') paths.set(node, path);
    return node;
  });
  return utf8Length(json ?? '') + claims;
}

/**
 * UTF-8 bytes of `text`: printable ASCII (the usual JSON) is one byte a character, found by the regular expression
 * engine rather than a loop in the sandbox's JavaScript; from the first other character on, counted one by one.
 */
export function utf8Length(text: string): number {
  const first = text.search(NOT_PRINTABLE_ASCII);
  if (first < 0) return text.length;
  let bytes = first;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
