/**
 * Generated conversations for properties: the AI SDK's `ModelMessage`s of every part kind (every tool call
 * answered, so that the AI SDK's own conversion takes them) and model-retry's plain shape.
 */
import { detectMediaType } from '@ai-sdk/provider-utils';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';

const notImage = (bytes: Uint8Array) => detectMediaType({ data: bytes, topLevelType: 'image' }) === undefined;
const bytesArb = fc.uint8Array({ minLength: 1, maxLength: 12 }).filter(notImage);
const base64Arb = bytesArb.map((b) => Buffer.from(b).toString('base64'));
const mediaTypeArb = fc.constantFrom('application/pdf', 'image/png', 'text/plain', 'audio/wav', 'image');
const urlArb = fc.webUrl({ withQueryParameters: true, withFragments: true });
const providerOptionsArb = fc.option(
  fc.dictionary(
    fc.constantFrom('openai', 'anthropic', 'google'),
    fc.dictionary(
      fc.constantFrom('cacheControl', 'signature', 'itemId'),
      fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    ),
    { maxKeys: 2 },
  ),
  { nil: undefined },
);
/** JSON as a JSON round trip gives it back (no -0). */
const jsonArb = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const textArb = fc.string({ maxLength: 8 });
const idArb = fc.uuid();

const withOptions = <T extends object>(part: T, providerOptions: unknown): T =>
  providerOptions === undefined ? part : { ...part, providerOptions };

/** What a file's data may be given as: bytes, base64, a URL (object or text), a data: URL, tagged data, a reference. */
const fileDataArb: fc.Arbitrary<{ data: unknown; dataUrl: boolean }> = fc.oneof(
  bytesArb.map((data) => ({ data, dataUrl: false })),
  base64Arb.map((data) => ({ data, dataUrl: false })),
  urlArb.map((u) => ({ data: new URL(u), dataUrl: false })),
  urlArb.map((u) => ({ data: u, dataUrl: false })),
  fc.tuple(fc.constantFrom('application/pdf', 'image/png', 'text/plain'), base64Arb).map(([t, b]) => ({
    data: `data:${t};base64,${b}`,
    dataUrl: true,
  })),
  bytesArb.map((data) => ({ data: { type: 'data', data }, dataUrl: false })),
  base64Arb.map((data) => ({ data: { type: 'data', data }, dataUrl: false })),
  urlArb.map((u) => ({ data: { type: 'url', url: new URL(u) }, dataUrl: false })),
  fc.constantFrom({ openai: 'file-abc' }, { anthropic: 'file_01', openai: 'file-x' }).map((reference) => ({
    data: { type: 'reference', reference },
    dataUrl: false,
  })),
  textArb.map((text) => ({ data: { type: 'text', text }, dataUrl: false })),
);

const textPartArb = fc
  .tuple(textArb, providerOptionsArb)
  .map(([text, o]) => withOptions({ type: 'text', text }, o));
const filePartArb = fc
  .tuple(
    fileDataArb,
    mediaTypeArb,
    fc.option(fc.constantFrom('a.pdf', 'b.txt'), { nil: undefined }),
    providerOptionsArb,
  )
  .map(([{ data }, mediaType, filename, o]) =>
    withOptions({ type: 'file', data, mediaType, ...(filename !== undefined ? { filename } : {}) }, o),
  );
const imagePartArb = fc
  .tuple(
    fileDataArb.filter(
      (d) => typeof d.data !== 'object' || d.data instanceof URL || d.data instanceof Uint8Array,
    ),
    fc.option(mediaTypeArb, { nil: undefined }),
    providerOptionsArb,
  )
  .map(([{ data }, mediaType, o]) =>
    withOptions({ type: 'image', image: data, ...(mediaType ? { mediaType } : {}) }, o),
  );

const systemArb = fc
  .tuple(textArb, providerOptionsArb)
  .map(([content, o]) => withOptions({ role: 'system', content }, o));
const userArb = fc
  .tuple(
    fc.oneof(textArb, fc.array(fc.oneof(textPartArb, filePartArb, imagePartArb), { maxLength: 4 })),
    providerOptionsArb,
  )
  .map(([content, o]) => withOptions({ role: 'user', content }, o));

/** The AI SDK's older kinds of a tool result's content parts, which it still takes. */
const referenceArb = fc.constantFrom({ openai: 'file-abc' }, { anthropic: 'file_01' });
const legacyContentArb = fc.oneof(
  fc
    .tuple(base64Arb, mediaTypeArb, fc.option(fc.constant('a.pdf'), { nil: undefined }))
    .map(([data, mediaType, filename]) => ({
      type: 'file-data',
      data,
      mediaType,
      ...(filename !== undefined ? { filename } : {}),
    })),
  fc.tuple(base64Arb, mediaTypeArb).map(([data, mediaType]) => ({ type: 'image-data', data, mediaType })),
  fc.tuple(urlArb, mediaTypeArb).map(([url, mediaType]) => ({ type: 'file-url', url, mediaType })),
  urlArb.map((url) => ({ type: 'image-url', url })),
  referenceArb.map((fileId) => ({ type: 'file-id', fileId })),
  referenceArb.map((fileId) => ({ type: 'image-file-id', fileId })),
  fc
    .tuple(referenceArb, providerOptionsArb)
    .map(([providerReference, o]) => withOptions({ type: 'file-reference', providerReference }, o)),
  referenceArb.map((providerReference) => ({ type: 'image-file-reference', providerReference })),
  providerOptionsArb.map((o) => withOptions({ type: 'custom' }, o)),
);

const toolOutputArb = fc.oneof(
  textArb.map((value) => ({ type: 'text', value })),
  jsonArb.map((value) => ({ type: 'json', value })),
  textArb.map((value) => ({ type: 'error-text', value })),
  jsonArb.map((value) => ({ type: 'error-json', value })),
  fc
    .option(textArb, { nil: undefined })
    .map((reason) => ({ type: 'execution-denied', ...(reason !== undefined ? { reason } : {}) })),
  fc
    .array(
      fc.oneof(
        textArb.map((text) => ({ type: 'text', text })),
        filePartArb.filter(
          (p) => typeof (p as { data: unknown }).data === 'object' && 'type' in (p as { data: object }).data,
        ),
        legacyContentArb,
      ),
      { maxLength: 3 },
    )
    .map((value) => ({ type: 'content', value })),
);

/** An assistant turn and the tool messages that answer its tool calls (one message, or one per result). */
const assistantTurnArb = fc
  .tuple(
    fc.oneof(
      textArb.map((content) => ({ content, parts: false })),
      fc
        .array(
          fc.oneof(
            textPartArb,
            fc
              .tuple(textArb, providerOptionsArb)
              .map(([text, o]) => withOptions({ type: 'reasoning', text }, o)),
            filePartArb.filter(
              (p) =>
                typeof (p as { data: unknown }).data !== 'string' ||
                (p as { data: string }).data.startsWith('data:') === false,
            ),
          ),
          { maxLength: 3 },
        )
        .map((content) => ({ content, parts: true })),
    ),
    fc.array(
      fc.tuple(idArb, fc.constantFrom('weather', 'calc'), jsonArb, toolOutputArb, providerOptionsArb),
      { maxLength: 3 },
    ),
    fc.boolean(),
    fc.option(
      fc.tuple(idArb, jsonArb, toolOutputArb).map(([id, input, output]) => [
        { type: 'tool-call', toolCallId: id, toolName: 'web_search', input, providerExecuted: true },
        { type: 'tool-result', toolCallId: id, toolName: 'web_search', output },
      ]),
      { nil: undefined },
    ),
    providerOptionsArb,
  )
  .map(([{ content, parts }, calls, split, executed, o]) => {
    const callParts = calls.map(([toolCallId, toolName, input, , po]) =>
      withOptions({ type: 'tool-call', toolCallId, toolName, input }, po),
    );
    const assistantContent =
      calls.length === 0 && executed === undefined && !parts
        ? content
        : [
            ...(parts ? (content as unknown[]) : [{ type: 'text', text: content }]),
            ...(executed ?? []),
            ...callParts,
          ];
    const results = calls.map(([toolCallId, toolName, , output]) => ({
      type: 'tool-result',
      toolCallId,
      toolName,
      output,
    }));
    // Tool messages with and without their own provider options, which the AI SDK merges in its own way.
    const tools =
      results.length === 0
        ? []
        : split
          ? results.map((r, i) => withOptions({ role: 'tool', content: [r] }, calls[i]![4]))
          : [withOptions({ role: 'tool', content: results }, o)];
    return [withOptions({ role: 'assistant', content: assistantContent }, o), ...tools];
  });

/** A conversation of the AI SDK's `ModelMessage`s in which every tool call is answered. */
export const conversationArb = fc
  .array(
    fc.oneof(
      systemArb.map((m) => [m]),
      userArb.map((m) => [m]),
      assistantTurnArb,
    ),
    { maxLength: 5 },
  )
  .map((turns) => turns.flat() as ModelMessage[]);

/** The plain shape: string contents, an assistant's `toolCalls`, a tool message per result. */
export const plainArb = fc.array(
  fc.oneof(
    textArb.map((content) => ({ role: 'user', content })),
    textArb.map((content) => ({ role: 'system', content })),
    fc
      .tuple(
        textArb,
        fc.array(fc.tuple(idArb, fc.constantFrom('calc', 'weather'), jsonArb), { maxLength: 2 }),
      )
      .map(([content, calls]) => ({
        role: 'assistant',
        content,
        ...(calls.length > 0
          ? { toolCalls: calls.map(([id, name, args]) => ({ id, name, args: JSON.stringify(args) })) }
          : {}),
      })),
    fc
      .tuple(idArb, textArb, fc.option(fc.boolean(), { nil: undefined }))
      .map(([toolCallId, content, isError]) => ({
        role: 'tool',
        toolCallId,
        toolName: 'calc',
        content,
        ...(isError !== undefined ? { isError } : {}),
      })),
  ),
  { maxLength: 6 },
);
