import { workflowInfo } from '@temporalio/workflow';
import { ATTEMPT_ROOM_BYTES, TEMPORAL_LIMITS, historyGrowth } from '../../policy/index.js';
import type { HistorySize, RunOutlook } from '../../policy/index.js';
import { inlineBytes } from '../../common/inline-bytes.js';

/**
 * What a call knows of its run's history before each decision (for the `history-limit` stop): the history's
 * size and length as of the current workflow task, and what each attempt of the call added, from one decision's
 * reading to the next (its wait and workflow tasks included).
 */
export class HistoryWatch {
  private last: HistorySize = reading();
  private readonly perAttempt: HistorySize[] = [];
  /** With a store, what of the request stays in the payload (counted once, when first needed). */
  private inline: number | undefined;
  private grown = 0;

  constructor(
    /** The attempt input's UTF-8 JSON bytes as workflow code sees it (conversation, tools, settings). */
    private inputBytes: number,
    /**
     * The worker keeps strings over `thresholdBytes` in a payload store: they are stored as references, and
     * `request` (the attempt's request) is what the rest is counted from.
     */
    private readonly payloadStore: { thresholdBytes: number; request: unknown } | undefined,
  ) {}

  /** The next attempts' input may be `bytes` longer (a repair's correction): estimated high, never lowered. */
  growInput(bytes: number): void {
    this.inputBytes += bytes;
    this.grown += bytes;
  }

  /** Before the first attempt. */
  start(): RunOutlook {
    return this.outlook();
  }

  /** After an attempt ended: notes what the history grew by since the last reading. */
  afterAttempt(): RunOutlook {
    const now = reading();
    this.perAttempt.push(historyGrowth(this.last, now));
    this.last = now;
    return this.outlook();
  }

  private outlook(): RunOutlook {
    return {
      history: {
        now: this.last,
        perAttempt: this.perAttempt,
        inputBytes: this.inputBytes,
        payloadStore: this.payloadStore !== undefined,
        ...this.inlineBytes(),
      },
    };
  }

  /**
   * With a store, what stays in the payload, counted only when the whole input would not fit Temporal's limit
   * (otherwise what stays fits too, and walking the conversation is not worth it).
   */
  private inlineBytes(): { inlineBytes?: number } {
    const store = this.payloadStore;
    if (store === undefined || this.inputBytes <= TEMPORAL_LIMITS.payloadBytes - ATTEMPT_ROOM_BYTES)
      return {};
    this.inline ??= inlineBytes(store.request, store.thresholdBytes);
    return { inlineBytes: this.inline + this.grown };
  }
}

function reading(): HistorySize {
  const info = workflowInfo();
  return { bytes: info.historySize, events: info.historyLength };
}
