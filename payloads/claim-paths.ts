/** A place in a JSON value: object keys and array indexes from the root. */
export type JsonPath = (string | number)[];

/** Every string in `value` whose UTF-8 is longer than `thresholdBytes`, with its path (depth first, in order). */
export function largeStrings(value: unknown, thresholdBytes: number): { path: JsonPath; text: string }[] {
  const found: { path: JsonPath; text: string }[] = [];
  const visit = (node: unknown, path: JsonPath) => {
    if (typeof node === 'string') {
      // A string of n UTF-16 units is at most 3n bytes and at least n: skip the byte count when it cannot matter.
      if (
        node.length > thresholdBytes ||
        (node.length * 3 > thresholdBytes && Buffer.byteLength(node) > thresholdBytes)
      )
        found.push({ path, text: node });
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) visit(item, [...path, key]);
    }
  };
  visit(value, []);
  return found;
}

/** `root` with the value at `path` replaced by `replacement` (the root itself when `path` is empty). */
export function setAt(root: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    node = own(node, key);
  }
  const last = path[path.length - 1] as string | number;
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, last))
    throw new Error(`claim-check: no value at ${JSON.stringify(path)}`);
  // defineProperty: a JSON key named "__proto__" is an own property and must stay one.
  Object.defineProperty(node, last, {
    value: replacement,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return root;
}

function own(node: unknown, key: string | number): unknown {
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key))
    throw new Error(`claim-check: the payload has no value at key ${JSON.stringify(key)}`);
  return (node as Record<string | number, unknown>)[key];
}

/** Whether `value` is a well-formed path. */
export function isJsonPath(value: unknown): value is JsonPath {
  return Array.isArray(value) && value.every((k) => typeof k === 'string' || (Number.isInteger(k) && k >= 0));
}
