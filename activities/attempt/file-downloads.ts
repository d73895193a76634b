/**
 * Files a model cannot take by URL, downloaded by the attempt and sent as bytes, as the AI SDK's own
 * `generateText` does before it calls a model: a file part (of a user message, or inside a tool result's content)
 * whose URL does not match the model's `supportedUrls` for its media type (`isUrlSupported`) is fetched with the
 * AI SDK's validated download (`createDownload`: http(s) only, no private addresses, redirects checked, size
 * bounded) within the attempt's time, and its media type completed from the response and the bytes as the AI
 * SDK completes it. Every other part is left as it is; a URL the model takes goes to the provider as a URL.
 *
 * The workflow never downloads (its sandbox has no network, and bytes in history are what the payload store is
 * for): the request in history keeps the URL, and each attempt fetches it again.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { detectMediaType, isFullMediaType, isUrlSupported } from '@ai-sdk/provider-utils';
import { createDownload, DownloadError } from 'ai';
import { ObservedPhase } from '../../policy/index.js';
import { socketCodeOf } from './classify-error.js';
import type { ObservedError } from './classify-error.js';

/** One download: the file's bytes and the media type the server stated. */
export type DownloadFile = (request: {
  url: URL;
  abortSignal?: AbortSignal;
}) => Promise<{ data: Uint8Array; mediaType: string | undefined }>;

/** The AI SDK's own download (100 MiB at most per file). */
export const defaultDownload: DownloadFile = createDownload();

interface FileLike {
  type: 'file';
  mediaType: string;
  data: { type: string; url?: unknown };
}

/** The file's URL, when its data is one. */
function urlOf(file: FileLike): URL | undefined {
  return file.data.type === 'url' && file.data.url instanceof URL ? file.data.url : undefined;
}

/** A file that could not be downloaded: the URL (without its query) and why. */
export class FileDownloadFailed extends Error {
  override readonly name = 'FileDownloadFailed';
  constructor(
    readonly url: URL,
    override readonly cause: unknown,
  ) {
    super(
      `the file at ${shownUrl(url)} could not be downloaded for a model that cannot take its URL: ${reason(cause, url)}`,
    );
  }
}

/**
 * `prompt` with every file the model cannot take by URL downloaded (each distinct URL once, all at once).
 * @throws FileDownloadFailed for the first file that could not be downloaded.
 */
export async function withDownloadedFiles(
  prompt: LanguageModelV4Prompt,
  supportedUrls: Record<string, RegExp[]>,
  download: DownloadFile,
  abortSignal: AbortSignal,
): Promise<LanguageModelV4Prompt> {
  const wanted = new Map<string, URL>();
  for (const file of filesOf(prompt)) {
    const url = urlOf(file);
    if (url === undefined) continue;
    if (!isUrlSupported({ mediaType: file.mediaType, url: url.toString(), supportedUrls })) {
      wanted.set(url.toString(), url);
    }
  }
  if (wanted.size === 0) return prompt;
  const fetched = new Map(
    await Promise.all(
      [...wanted].map(async ([key, url]) => {
        try {
          return [key, await download({ url, abortSignal })] as const;
        } catch (error) {
          throw new FileDownloadFailed(url, error);
        }
      }),
    ),
  );
  return mapFiles(prompt, (file) => {
    const got = fetched.get(urlOf(file)?.toString() ?? '');
    if (got === undefined) return file;
    // As the AI SDK's `convertPartToLanguageModelPart`: the server's media type completes a top-level one, and
    // an image's bytes say which image it is.
    let mediaType =
      got.mediaType !== undefined && !isFullMediaType(file.mediaType) ? got.mediaType : file.mediaType;
    mediaType = detectMediaType({ data: got.data, topLevelType: 'image' }) ?? mediaType;
    return { ...file, mediaType, data: { type: 'data', data: got.data } };
  });
}

/**
 * How a failed download is classified: nothing was sent to the provider. A 4xx of the file's server (but 408,
 * 425 and 429) and a URL the AI SDK refuses to fetch (a private address, another scheme, too large) are
 * `BadRequest`: the same request fails the same way. A server error, a timeout or a socket that failed is
 * `ConnectFailed`: another attempt may get the file.
 */
export function observeDownloadError(error: FileDownloadFailed): ObservedError {
  const status = DownloadError.isInstance(error.cause) ? error.cause.statusCode : undefined;
  const transient =
    status !== undefined && (status >= 500 || status === 408 || status === 425 || status === 429);
  const socketCode = socketCodeOf(error.cause);
  if (transient || (status === undefined && socketCode !== undefined)) {
    return {
      observation: { phase: ObservedPhase.BeforeSend, ...(socketCode !== undefined ? { socketCode } : {}) },
      message: error.message,
    };
  }
  return { observation: { invalidInput: true }, message: error.message };
}

/** A URL as messages show it: no userinfo, query or fragment (a signed URL's signature stays out). */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function reason(cause: unknown, url: URL): string {
  if (DownloadError.isInstance(cause) && cause.statusCode !== undefined) {
    return `${cause.statusCode}${cause.statusText ? ` ${cause.statusText}` : ''}`;
  }
  const inner = DownloadError.isInstance(cause) && cause.cause !== undefined ? cause.cause : cause;
  const text = inner instanceof Error ? inner.message : String(inner);
  const code = socketCodeOf(inner);
  const said = text.split(url.toString()).join(shownUrl(url));
  return code !== undefined && !said.includes(code) ? `${said} (${code})` : said;
}

/** The file parts the AI SDK downloads: of user messages, and inside tool results' content. */
function filesOf(prompt: LanguageModelV4Prompt): FileLike[] {
  const out: FileLike[] = [];
  for (const message of prompt) {
    if (message.role === 'user') {
      for (const p of message.content) if (p.type === 'file') out.push(p);
    } else if (message.role === 'tool' || message.role === 'assistant') {
      for (const p of message.content) out.push(...resultFiles(p));
    }
  }
  return out;
}

/** The file parts inside a tool result's content (none for any other part). */
function resultFiles(part: { type: string }): FileLike[] {
  const value = contentOf(part);
  return value === undefined ? [] : (value.filter((item) => item.type === 'file') as FileLike[]);
}

/** A tool result's `content` output items, else `undefined`. */
function contentOf(part: { type: string }): { type: string }[] | undefined {
  const output = (part as { output?: { type?: unknown; value?: unknown } }).output;
  return part.type === 'tool-result' && output?.type === 'content' && Array.isArray(output.value)
    ? (output.value as { type: string }[])
    : undefined;
}

/** `prompt` with `f` applied to each file part that {@link filesOf} lists; other messages and parts as they are. */
function mapFiles(prompt: LanguageModelV4Prompt, f: (file: FileLike) => FileLike): LanguageModelV4Prompt {
  return prompt.map((message) => {
    if (message.role === 'user') {
      return {
        ...message,
        content: message.content.map((p) => (p.type === 'file' ? (f(p) as typeof p) : p)),
      };
    }
    if (message.role === 'tool' || message.role === 'assistant') {
      const content = (message.content as readonly { type: string }[]).map((p) => {
        const value = contentOf(p);
        if (value === undefined || !value.some((item) => item.type === 'file')) return p;
        const output = (p as unknown as { output: object }).output;
        const mapped = value.map((item) => (item.type === 'file' ? f(item as FileLike) : item));
        return { ...p, output: { ...output, value: mapped } };
      });
      return { ...message, content } as typeof message;
    }
    return message;
  });
}
