import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { toWireMessages } from '../common/messages.js';
import type { WireMessage } from '../common/request.js';
import { UsageError } from './args.js';

/** `parseArgs` options of the flags that add parts to the user message (`call` and `turn`). */
export const PART_FLAG_OPTIONS = {
  image: { type: 'string', multiple: true },
  file: { type: 'string', multiple: true },
} as const;

/** The part flags as `parseArgs` gives them. */
export interface PartFlagValues {
  image?: string[] | undefined;
  file?: string[] | undefined;
}

/** A part of the user message as the AI SDK's `ModelMessage` holds it, with the flag and path that gave it. */
export type FlagPart =
  | { type: 'image'; image: Uint8Array; mediaType: string; flag: '--image'; path: string }
  | { type: 'file'; data: Uint8Array; mediaType: string; filename: string; flag: '--file'; path: string };

/** Media types by extension: only the ones every provider family names the same way. */
export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
export const FILE_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  csv: 'text/csv',
};

/** `FILE:type/subtype`: the media type given after the last colon (so `C:\x.bin:a/b` still splits right). */
const WITH_TYPE = /^(.+):([A-Za-z0-9][\w.+-]*\/[\w.+-]+)$/;

/**
 * The parts `--image FILE` and `--file FILE` add to the user message, images first, each in the order given.
 * The media type comes from the extension (see {@link IMAGE_TYPES}, {@link FILE_TYPES}) or from `FILE:type/subtype`.
 * @throws UsageError naming the flag, the file and the fix.
 */
export function partsFromFlags(
  values: PartFlagValues,
  read: (path: string) => Uint8Array = readFileSync,
): FlagPart[] {
  const images = (values.image ?? []).map((given): FlagPart => {
    const { path, mediaType } = typed('--image', given, IMAGE_TYPES);
    if (!mediaType.startsWith('image/')) {
      throw new UsageError(
        `\`--image\` ${JSON.stringify(given)}: ${mediaType} is not an image type: give \`--image FILE:image/TYPE\`, ` +
          'or send the file with `--file`.',
      );
    }
    return { type: 'image', image: bytesOf('--image', path, read), mediaType, flag: '--image', path };
  });
  const files = (values.file ?? []).map((given): FlagPart => {
    const { path, mediaType } = typed('--file', given, FILE_TYPES);
    const data = bytesOf('--file', path, read);
    return { type: 'file', data, mediaType, filename: basename(path), flag: '--file', path };
  });
  return [...images, ...files];
}

function typed(
  flag: '--image' | '--file',
  given: string,
  known: Readonly<Record<string, string>>,
): { path: string; mediaType: string } {
  const explicit = WITH_TYPE.exec(given);
  if (explicit) return { path: explicit[1] as string, mediaType: (explicit[2] as string).toLowerCase() };
  if (given.trim() === '') throw new UsageError(`\`${flag}\` is empty: give the path of a file.`);
  const extension = extname(given).slice(1).toLowerCase();
  const mediaType = known[extension];
  if (mediaType !== undefined) return { path: given, mediaType };
  const image =
    flag === '--file' && IMAGE_TYPES[extension] !== undefined ? ', or send an image with `--image`' : '';
  const type = flag === '--image' ? 'image/TYPE' : 'media/type';
  throw new UsageError(
    `\`${flag}\` ${JSON.stringify(given)}: cannot tell its media type from the extension ` +
      `(${Object.keys(known).join(', ')}): give it as \`${flag} ${given}:${type}\`${image}.`,
  );
}

function bytesOf(flag: string, path: string, read: (path: string) => Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = read(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `\`${flag}\` ${JSON.stringify(path)} cannot be read (${typeof code === 'string' ? code : String(error)}): check the path.`,
    );
  }
  if (bytes.length === 0)
    throw new UsageError(`\`${flag}\` ${JSON.stringify(path)} is empty: give a file with something in it.`);
  // A Buffer may be a view of a shared pool: the part holds its own bytes.
  return new Uint8Array(bytes);
}

/**
 * The user message of a prompt with parts, in the wire form the history keeps (bytes as base64), converted by
 * the same rules as `startModelCall` so that the size checks measure what Temporal will store.
 */
export function userMessageOf(prompt: string, parts: readonly FlagPart[]): WireMessage {
  const content = [
    { type: 'text', text: prompt },
    ...parts.map(({ flag: _flag, path: _path, ...part }) => part),
  ];
  return toWireMessages([{ role: 'user', content }])[0] as WireMessage;
}

/**
 * The flag that gave a refused field of the user message built by {@link userMessageOf}: `content[0]` is the
 * prompt, `content[i]` the part `i - 1`; the message as a whole (the size check names `messages[0]`) by its
 * largest piece.
 */
export function partFlagOf(
  field: string,
  prompt: { flag: string; text: string },
  parts: readonly FlagPart[],
): string | undefined {
  if (!field.startsWith('messages')) return undefined;
  const index = /^messages(?:\[0\])?\.content\[(\d+)\]/.exec(field)?.[1];
  if (index !== undefined) {
    const part = parts[Number(index) - 1];
    return part === undefined ? prompt.flag : `${part.flag} ${part.path}`;
  }
  let largest = { label: prompt.flag, bytes: Buffer.byteLength(prompt.text) };
  for (const part of parts) {
    // Bytes travel as base64: four characters for three bytes.
    const bytes = Math.ceil(sizeOf(part) / 3) * 4;
    if (bytes > largest.bytes) largest = { label: `${part.flag} ${part.path}`, bytes };
  }
  return largest.label;
}

const sizeOf = (part: FlagPart) => (part.type === 'image' ? part.image.length : part.data.length);

/** Help text lines for the part flags, shared by `call --help` and `turn --help`. */
export const PART_HELP = `Parts of the user message (after the prompt: images, then files, each in the order given):
  --image FILE         An image; repeat for more. Its type from the extension: png, jpg/jpeg, gif, webp;
                       else give it: --image FILE:image/TYPE.
  --file FILE          A file (a PDF, a text); repeat for more. Its type from the extension: pdf, txt, md,
                       json, csv; else give it: --file FILE:media/type. The bytes are written into the
                       history (or the payload store, when it is on): an input too large for Temporal's
                       2 MB payload limit is refused (exit 2).
`;
