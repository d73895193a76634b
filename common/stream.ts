/**
 * What model-retry puts in a workflow's stream, for publishers (the attempt activity), the workflow and
 * subscribers (hosts, the command line). Plain JSON.
 */
import type { StopReason } from '../policy/index.js';

/** The topic of text deltas, one item per provider delta. */
export const DELTA_TOPIC = 'model-retry.delta';
/** The topic of call events the workflow publishes. */
export const EVENT_TOPIC = 'model-retry.event';

/** One text delta of a streamed attempt, as the provider sent it. */
export interface StreamDelta {
  /** `<callId>.<attempt>`: the attempt that produced it. */
  modelCallId: string;
  text: string;
}

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
}

/** The default batch interval, ms. */
export const DEFAULT_STREAM_BATCH_MS = 500;
/** Bounds of `stream.batchMs`. */
export const MIN_STREAM_BATCH_MS = 10;
export const MAX_STREAM_BATCH_MS = 60_000;
