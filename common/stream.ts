/**
 * What model-retry puts in a workflow's stream, for publishers (the attempt activity), the workflow and
 * subscribers (hosts, the command line). Plain JSON.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { StopReason } from '../policy/index.js';
import type { Wire } from './request.js';

/** The topic of text deltas, one item per provider delta. */
export const DELTA_TOPIC = 'model-retry.delta';
/** The topic of call events the workflow publishes. */
export const EVENT_TOPIC = 'model-retry.event';

/** One text delta of a streamed attempt, as the provider sent it, or another part of its answer. */
export interface StreamDelta {
  /** `<callId>.<attempt>`: the attempt that produced it. */
  modelCallId: string;
  /** The text delta; '' for a part that is not text. */
  text: string;
  /** A part of the answer besides its text (reasoning, tool input, a tool call, the finish), as it came. */
  part?: StreamPart;
}

/**
 * Whether an item of a streamed attempt counts as delivered: a text delta, or a part such as reasoning or tool
 * input (a subscriber has it, so the attempt's answer cannot be sent again). The finish part goes out only with an
 * accepted answer and counts for nothing. The workflow and the history reader count by this one rule.
 */
export function countsAsDelivered(delta: Partial<StreamDelta>): boolean {
  if (typeof delta.text !== 'string') return false;
  return delta.text !== '' || (delta.part !== undefined && delta.part.type !== 'finish');
}

/** The AI SDK's stream part types a subscriber gets besides text deltas. */
export const STREAM_PART_TYPES = [
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-call',
  'tool-result',
  'source',
  'file',
  'finish',
] as const;

/**
 * A part of a streamed answer besides its text deltas, as the AI SDK's stream parts are (JSON-safe). A file part
 * carries its media type only: stream signals never carry file bytes, nor the provider's raw chunks.
 */
export type StreamPart =
  | Wire<Extract<LanguageModelV4StreamPart, { type: Exclude<(typeof STREAM_PART_TYPES)[number], 'file'> }>>
  | { type: 'file'; mediaType: string };

/** A call event: an attempt started, or the call stopped. */
export type StreamEvent =
  | { type: 'attempt'; callId: string; modelCallId: string; attempt: number; model: string }
  | { type: 'stop'; callId: string; stopReason: StopReason; modelCallId?: string };

/** How a call streams. */
export interface StreamOptions {
  /**
   * How long the attempt collects deltas before it publishes them as one batch (one signal, three history
   * events). Lower is snappier, higher costs fewer events. @default 500
   */
  batchMs?: number;
  /**
   * What a cut stream does to the call. `'stop'`: it stops `stream-interrupted` with the partial text. `'continue'`:
   * the cut is classified by what cut it and the plan decides; the next attempt (same backend or the next) continues
   * the delivered text, each character delivered once. @default 'stop'
   */
  onCut?: 'stop' | 'continue';
}

/** How a call's attempts stream, once checked: the batch interval, and `onCut` when a cut is continued. */
export interface StreamConfig {
  batchMs: number;
  onCut?: 'continue';
}

/** The default batch interval, ms. */
export const DEFAULT_STREAM_BATCH_MS = 500;
/** Bounds of `stream.batchMs`. */
export const MIN_STREAM_BATCH_MS = 10;
/** Bounds of `stream.batchMs`. */
export const MAX_STREAM_BATCH_MS = 60_000;
