/**
 * The parts of a streamed answer added up to what `doGenerate` returns for the same answer, whole: text and
 * reasoning (their deltas joined, the provider metadata of their start, deltas and end, the last one kept, as
 * the AI SDK's own `streamText` does: a reasoning signature arrives on `reasoning-end`), text citations, files,
 * reasoning files, sources, tool calls (provider-executed ones too), tool results, tool approval requests and
 * custom content, in the order they began; the warnings of `stream-start`; the response metadata (its fields
 * merged as they come); and the finish part's reason, usage and provider metadata.
 *
 * Pure: no publishing, no I/O. `stream-answer.ts` reads the stream and feeds each part here.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4ResponseMetadata,
  LanguageModelV4StreamPart,
  SharedV4Headers,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';

/** The stream's finish part. */
export type FinishPart = Extract<LanguageModelV4StreamPart, { type: 'finish' }>;

type TextContent = Extract<LanguageModelV4Content, { type: 'text' }>;
type ReasoningContent = Extract<LanguageModelV4Content, { type: 'reasoning' }>;

/** A streamed answer's content as it arrives. */
export class StreamContent {
  private readonly content: LanguageModelV4Content[] = [];
  private readonly texts = new Map<string, TextContent>();
  private readonly reasonings = new Map<string, ReasoningContent>();
  private readonly warnings: SharedV4Warning[] = [];
  private metadata: LanguageModelV4ResponseMetadata = {};
  private finishPart: FinishPart | undefined;

  /** Adds one part of the stream. `error`, `raw`, `ping` and tool input parts add nothing. */
  add(part: LanguageModelV4StreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'text-delta':
      case 'text-end': {
        const text = this.open(this.texts, part.id, 'text');
        if (part.type === 'text-delta') text.text += part.delta;
        if (part.type === 'text-end' && part.citations !== undefined) text.citations = part.citations;
        keepMetadata(text, part.providerMetadata);
        if (part.type === 'text-end') this.texts.delete(part.id);
        break;
      }
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end': {
        const reasoning = this.open(this.reasonings, part.id, 'reasoning');
        if (part.type === 'reasoning-delta') reasoning.text += part.delta;
        keepMetadata(reasoning, part.providerMetadata);
        if (part.type === 'reasoning-end') this.reasonings.delete(part.id);
        break;
      }
      case 'tool-call':
      case 'tool-result':
      case 'tool-approval-request':
      case 'custom':
      case 'file':
      case 'reasoning-file':
      case 'source':
        this.content.push(part);
        break;
      case 'stream-start':
        this.warnings.push(...part.warnings);
        break;
      case 'response-metadata': {
        const { type: _type, ...fields } = part;
        this.metadata = { ...this.metadata, ...definedOnly(fields) };
        break;
      }
      case 'finish':
        this.finishPart = part;
        break;
      default:
        // tool-input-start/delta/end (the tool call comes whole), raw chunks, pings, errors (the reader's).
        break;
    }
  }

  /** The finish part, once it came. */
  get finish(): FinishPart | undefined {
    return this.finishPart;
  }

  /**
   * What `doGenerate` would have returned: call once the stream ended with its finish part. `request` and
   * `headers` are the ones `doStream` returned beside its stream.
   */
  result(
    finish: FinishPart,
    request?: LanguageModelV4GenerateResult['request'],
    headers?: SharedV4Headers,
  ): LanguageModelV4GenerateResult {
    return {
      content: this.content,
      finishReason: finish.finishReason,
      usage: finish.usage,
      ...(finish.providerMetadata !== undefined ? { providerMetadata: finish.providerMetadata } : {}),
      ...(request !== undefined ? { request } : {}),
      response: { ...this.metadata, ...(headers !== undefined ? { headers } : {}) },
      warnings: this.warnings,
    };
  }

  /** The open text or reasoning part of `id`, begun (and placed in order) by its first part. */
  private open<T extends TextContent | ReasoningContent>(
    open: Map<string, T>,
    id: string,
    type: T['type'],
  ): T {
    let part = open.get(id);
    if (part === undefined) {
      part = { type, text: '' } as T;
      open.set(id, part);
      this.content.push(part);
    }
    return part;
  }
}

/** A part's provider metadata: the latest that came (a start's, a delta's, then the end's, such as a signature). */
function keepMetadata(
  part: { providerMetadata?: SharedV4ProviderMetadata },
  metadata: SharedV4ProviderMetadata | undefined,
) {
  if (metadata !== undefined) part.providerMetadata = metadata;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
