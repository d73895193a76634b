import type { LoopbackProvider } from '../../../loopback/index.js';

/** POSTs JSON to the provider. */
export function post(
  lp: LoopbackProvider,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${lp.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** An OpenAI chat completion request for `model`. */
export function chat(
  lp: LoopbackProvider,
  model: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return post(
    lp,
    '/v1/chat/completions',
    { model, messages: [{ role: 'user', content: 'hi' }], ...extra },
    headers,
  );
}

/** An Anthropic messages request for `model`. */
export function messages(
  lp: LoopbackProvider,
  model: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = { model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra };
  return post(lp, '/v1/messages', body, headers);
}

/** One parsed server-sent event. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Reads a whole event stream (throws if the connection breaks before it ends). */
export async function readSse(res: Response): Promise<SseEvent[]> {
  return parseSse(await res.text());
}

/** Parses server-sent events from text (a trailing incomplete event is dropped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n').slice(0, -1)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
    }
    events.push({ ...(event === undefined ? {} : { event }), data: data.join('\n') });
  }
  return events;
}

/** Reads a body until it ends or breaks; returns the text received and the error, if any. */
export async function readUntilBroken(res: Response): Promise<{ text: string; error?: unknown }> {
  const reader = res.body?.getReader();
  if (reader === undefined) return { text: '' };
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/** The chain of `cause`s of an error, as `code`/`message` strings, for asserting on network failures. */
export function causes(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && out.length < 10) {
    const code = (current as { code?: unknown }).code;
    out.push(typeof code === 'string' ? `${code}: ${current.message}` : current.message);
    current = current.cause;
  }
  return out;
}
