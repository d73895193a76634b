/**
 * What a request's input is guessed to cost in tokens before the provider says (budgets count it for an attempt
 * whose backend has not reported usage yet in this call). Per part: text by its UTF-8 bytes / 4; an image a fixed
 * count (a provider bills an image by its pixels, which no byte count tells); another file by its bytes / 4;
 * tool calls, results and tools by their JSON / 4; reasoning signatures, encrypted reasoning and provider options 0
 * (they are not read as input text).
 */
import type { WireMessage, WireRequest } from './request.js';

/** Tokens an image part is counted as: about what the large providers bill a 1,000-pixel-square image. */
export const IMAGE_TOKENS = 1_600;

const encoder = new TextEncoder();
/** Tokens a text is guessed to cost: its UTF-8 bytes / 4. */
export const textTokens = (text: string): number => Math.ceil(encoder.encode(text).length / 4);
const jsonTokens = (value: unknown): number =>
  value === undefined ? 0 : textTokens(JSON.stringify(value) ?? '');

/** Bytes a base64 string decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function fileTokens(part: {
  mediaType: string;
  data: { type: string; data?: unknown; text?: unknown };
}): number {
  if (part.mediaType === 'image' || part.mediaType.startsWith('image/')) return IMAGE_TOKENS;
  if (part.data.type === 'data' && typeof part.data.data === 'string')
    return Math.ceil(base64Bytes(part.data.data) / 4);
  if (part.data.type === 'text' && typeof part.data.text === 'string') return textTokens(part.data.text);
  // A URL or a provider's reference: its size is not known here.
  return IMAGE_TOKENS;
}

function messageTokens(m: WireMessage): number {
  if (m.role === 'system') return textTokens(m.content);
  let tokens = 0;
  for (const part of m.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        tokens += textTokens(part.text);
        break;
      case 'file':
        tokens += fileTokens(part);
        break;
      case 'tool-call':
        tokens += jsonTokens(part.input);
        break;
      case 'tool-result':
        tokens +=
          part.output.type === 'content'
            ? part.output.value.reduce(
                (n, c) =>
                  n + (c.type === 'text' ? textTokens(c.text) : c.type === 'file' ? fileTokens(c) : 0),
                0,
              )
            : jsonTokens('value' in part.output ? part.output.value : part.output.reason);
        break;
      default:
        break;
    }
  }
  return tokens;
}

/** The input tokens a request is guessed to cost: its messages' parts and its tools, or the texts it embeds. */
export function estimateInputTokens(request: Pick<WireRequest, 'prompt' | 'tools' | 'embed'>): number {
  let tokens = 0;
  for (const m of request.prompt) tokens += messageTokens(m);
  if (request.tools) tokens += jsonTokens(request.tools);
  if (request.embed) for (const value of request.embed.values) tokens += textTokens(value);
  return tokens;
}
