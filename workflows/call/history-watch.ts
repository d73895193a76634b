import { workflowInfo } from '@temporalio/workflow';
import { historyGrowth } from '../../policy/index.js';
import type { HistorySize, RunOutlook } from '../../policy/index.js';

/**
 * What a call knows of its run's history before each decision (for the `history-limit` stop): the history's
 * size and length as of the current workflow task, and what each attempt of the call added, from one decision's
 * reading to the next (its wait and workflow tasks included).
 */
export class HistoryWatch {
  private last: HistorySize = reading();
  private readonly perAttempt: HistorySize[] = [];

  constructor(
    /** The attempt input's UTF-8 JSON bytes as workflow code sees it (conversation, tools, settings). */
    private inputBytes: number,
    /** The worker keeps long strings in a payload store: the input is stored as a reference. */
    private readonly payloadStore: boolean,
  ) {}

  /** The next attempts' input may be `bytes` longer (a repair's correction): estimated high, never lowered. */
  growInput(bytes: number): void {
    this.inputBytes += bytes;
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
        payloadStore: this.payloadStore,
      },
    };
  }
}

function reading(): HistorySize {
  const info = workflowInfo();
  return { bytes: info.historySize, events: info.historyLength };
}
