/**
 * A message's file parts in wire form: bytes, base64, URLs (a `data:` URL is its bytes and media type), provider
 * references, and the tool-result content parts the AI SDK still takes but no longer sends.
 */
import { bytesToBase64, isBytes, isUrl, toWire } from './request.js';
import { objectAt, optionsAt, refuse } from './message-shape.js';
import type { FileData, Part, UserPart } from './message-shape.js';

export function filePart(part: Part, at: string): Extract<UserPart, { type: 'file' }> {
  const image = part.type === 'image';
  const given = image ? part.image : part.data;
  const field = `${at}.${image ? 'image' : 'data'}`;
  if (given === undefined || given === null) refuse(field, 'is missing: give bytes, base64 or a URL');
  const { data, mediaType: fromUrl } = fileData(given, field);
  const mediaType = fromUrl ?? (part.mediaType as string | undefined) ?? (image ? 'image' : undefined);
  if (typeof mediaType !== 'string' || mediaType === '')
    refuse(`${at}.mediaType`, 'is missing: give the IANA media type (`application/pdf`, `image/png`)');
  if (part.filename !== undefined && typeof part.filename !== 'string')
    refuse(`${at}.filename`, 'must be a string');
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return {
    type: 'file',
    data,
    mediaType: mediaType as string,
    ...(part.filename !== undefined ? { filename: part.filename as string } : {}),
    ...(providerOptions ? { providerOptions } : {}),
  };
}

/** File data in the tagged wire shape, with the media type a `data:` URL names. */
export function fileData(given: unknown, field: string): { data: FileData; mediaType?: string } {
  if (typeof given === 'object' && given !== null && !isBytes(given) && !isUrl(given) && 'type' in given) {
    const tagged = given as Part;
    switch (tagged.type) {
      case 'data':
        if (typeof tagged.data === 'string' && tagged.data.startsWith('data:'))
          refuse(`${field}.data`, 'a data URL is not inline data: pass it as `{ type: "url", url }`');
        return inline(tagged.data, `${field}.data`);
      case 'url':
        return urlData(tagged.url, `${field}.url`, tagged.originalUrl);
      case 'reference':
        return {
          data: { type: 'reference', reference: referenceAt(tagged.reference, `${field}.reference`) },
        };
      case 'text':
        if (typeof tagged.text !== 'string') refuse(`${field}.text`, 'must be a string');
        return { data: { type: 'text', text: tagged.text as string } };
      default:
        return refuse(`${field}.type`, 'file data is `{ type: "data" | "url" | "reference" | "text", ... }`');
    }
  }
  if (isUrl(given)) return urlData(given, field);
  if (typeof given === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(given)) return urlData(given, field);
    return inline(given, field);
  }
  if (isBytes(given) || Object.prototype.toString.call(given) === '[object ArrayBuffer]')
    return inline(given, field);
  if (typeof given === 'object' && given !== null) {
    return { data: { type: 'reference', reference: referenceAt(given, field) } };
  }
  return refuse(field, 'must be bytes (a Uint8Array), a base64 string, a URL or `{ type, ... }` file data');
}

export function inline(value: unknown, field: string): { data: FileData } {
  if (typeof value === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value))
      refuse(field, 'is neither a URL nor base64: give bytes or base64');
    return { data: { type: 'data', data: value } };
  }
  if (isBytes(value) || Object.prototype.toString.call(value) === '[object ArrayBuffer]')
    return { data: { type: 'data', data: toWire(value as Uint8Array) } };
  return refuse(field, 'must be bytes (a Uint8Array) or a base64 string');
}

export function urlData(
  value: unknown,
  field: string,
  originalUrl?: unknown,
): { data: FileData; mediaType?: string } {
  let url: URL;
  try {
    url = isUrl(value) ? value : new URL(String(value));
  } catch {
    return refuse(field, `"${String(value).slice(0, 80)}" is not a URL`);
  }
  if (url.username !== '' || url.password !== '')
    refuse(field, 'a URL with a user name or password in it would be written into the history: remove them');
  if (url.protocol === 'data:') {
    const text = url.href;
    const comma = text.indexOf(',');
    const params = text.slice(5, comma).split(';');
    const mediaType = params[0];
    if (comma < 0 || !mediaType)
      refuse(field, 'is a data URL without a media type: `data:image/png;base64,...`');
    const payload = text.slice(comma + 1);
    if (params.includes('base64'))
      return { data: { type: 'data', data: payload }, mediaType: mediaType as string };
    // Percent-encoded text (`data:text/plain,hello%20world`): its bytes, as base64 like every inline file.
    let decoded: string;
    try {
      decoded = decodeURIComponent(payload);
    } catch {
      return refuse(field, 'is a data URL whose text is not percent-encoded UTF-8');
    }
    const data = bytesToBase64(new TextEncoder().encode(decoded));
    return { data: { type: 'data', data }, mediaType: mediaType as string };
  }
  const original =
    typeof originalUrl === 'string' ? originalUrl : typeof value === 'string' ? value : undefined;
  return {
    data: {
      type: 'url',
      url: url.href,
      ...(original !== undefined && original !== url.href ? { originalUrl: original } : {}),
    },
  };
}

export function referenceAt(value: unknown, field: string): Record<string, string> {
  const ref = objectAt(value, field, 'a provider reference `{ provider: id }`');
  const entries = Object.entries(ref);
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== 'string'))
    refuse(field, 'a provider reference maps provider names to ids: `{ openai: "file-abc" }`');
  return ref as Record<string, string>;
}

/**
 * A tool result's content part of a kind the AI SDK still takes but no longer sends (`file-data`, `image-url`,
 * `file-reference`, ...), as the file part the AI SDK turns it into (the specification knows text, file and custom
 * parts only); `undefined` for the other parts. A file id as a bare string names no provider (the AI SDK resolves it
 * by the one provider of its model; a call may have several): give `{ provider: id }`.
 */
export function legacyFile(c: Part, at: string): Part | undefined {
  const options = c.providerOptions !== undefined ? { providerOptions: c.providerOptions } : {};
  const file = (data: Part, mediaType: unknown, extra: Part = {}): Part => ({
    type: 'file',
    data,
    mediaType,
    ...extra,
    ...options,
  });
  const fileId = (): Part => {
    if (typeof c.fileId === 'string')
      refuse(`${at}.fileId`, 'a bare file id names no provider: give `{ openai: "file-abc" }`');
    return { type: 'reference', reference: c.fileId };
  };
  switch (c.type) {
    case 'file-data':
      return file(
        { type: 'data', data: c.data },
        c.mediaType,
        c.filename !== undefined ? { filename: c.filename } : {},
      );
    case 'image-data':
      return file({ type: 'data', data: c.data }, c.mediaType);
    case 'file-url':
      if (c.mediaType === undefined)
        refuse(`${at}.mediaType`, 'is missing: give the IANA media type of the file');
      return file({ type: 'url', url: c.url }, c.mediaType);
    case 'image-url':
      return file({ type: 'url', url: c.url }, 'image');
    case 'file-id':
      return file(fileId(), 'application');
    case 'image-file-id':
      return file(fileId(), 'image');
    case 'file-reference':
      return file({ type: 'reference', reference: c.providerReference }, 'application');
    case 'image-file-reference':
      return file({ type: 'reference', reference: c.providerReference }, 'image');
    default:
      return undefined;
  }
}
