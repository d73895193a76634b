import type { Usage } from '../common/attempt.js';
import type { Spent, StopReason } from '../policy/index.js';
import { billedTotals } from '../common/ledger/billed.js';
import type { AttemptRecord, BilledTotals, ModelCallResult } from '../common/call.js';
import type { WorkflowHandle } from '@temporalio/client';
import { fetchDecodedHistory } from '../client/decode-history.js';
import { readCallHistory } from '../client/history-reader.js';
import type { CallHistory } from '../client/history-reader.js';
import { formatMs } from './progress.js';

/** What `call --json` (and `cancel --json`) prints: one object, for a call that has ended. */
export interface CallOutcome {
  workflowId: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  /** Absent only when the workflow did not stop as a model call (terminated, timed out, invalid input). */
  stopReason?: StopReason;
  /** The answer, when the call succeeded. */
  output?: ModelCallResult['output'];
  /** The backend that answered (`provider:model`). */
  model?: string;
  /** The successful attempt's usage. */
  usage?: Usage;
  /** Every attempt, rebuilt from the event history. */
  attempts: AttemptRecord[];
  /** What the providers reported across every attempt (a failed call may have been billed too). */
  billed: BilledTotals;
  /** A call with a budget: what it counted as spent, failed attempts included. */
  spent?: Spent;
  /** Temporal's close status when it is not one of `status` (`terminated`, `timed-out`). */
  closedAs?: 'terminated' | 'timed-out';
  /** The workflow's failure message when it failed other than as `ModelCallFailed`. */
  message?: string;
  /** A streamed call that stopped `stream-interrupted`: the text that had reached the caller. */
  partialText?: string;
}

/**
 * The outcome of a `modelCallWorkflow` run from its history alone (no worker needed), or `undefined` while
 * it runs. A terminated or timed-out workflow is `failed` with `closedAs` saying which.
 */
export function outcomeOf(workflowId: string, history: CallHistory): CallOutcome | undefined {
  const tail = {
    attempts: history.attempts,
    billed: billedTotals(history.attempts),
    ...(history.spent ? { spent: history.spent } : {}),
  };
  const reason = history.stopReason !== undefined ? { stopReason: history.stopReason } : {};
  switch (history.status) {
    case 'running':
    case 'continued-as-new':
      return undefined;
    case 'succeeded': {
      const result = history.result as Partial<ModelCallResult> | undefined;
      return {
        workflowId,
        status: 'succeeded',
        ...reason,
        ...(result?.output ? { output: result.output } : {}),
        ...(result?.model ? { model: result.model } : {}),
        ...(result?.usage ? { usage: result.usage } : {}),
        ...tail,
      };
    }
    case 'cancelled':
      return { workflowId, status: 'cancelled', stopReason: 'cancelled', ...tail };
    case 'failed': {
      const message = history.stopReason === undefined ? history.failureMessage : undefined;
      const partial = history.partialText !== undefined ? { partialText: history.partialText } : {};
      return {
        workflowId,
        status: 'failed',
        ...reason,
        ...(message ? { message } : {}),
        ...partial,
        ...tail,
      };
    }
    case 'terminated':
    case 'timed-out':
      return { workflowId, status: 'failed', closedAs: history.status, ...tail };
  }
}

/** The outcome of a call from its history alone (no worker needed), or `undefined` while it runs. */
export async function closedOutcome(handle: WorkflowHandle): Promise<CallOutcome | undefined> {
  return outcomeOf(handle.workflowId, readCallHistory(await fetchDecodedHistory(handle)));
}

/** 0 for a call that succeeded, 1 for one that failed or was cancelled. */
export function exitCodeOf(outcome: CallOutcome): number {
  return outcome.status === 'succeeded' ? 0 : 1;
}

/** One line that says how the call ended: `succeeded on local:fast after 3 attempts in 1.2 s (...)`. */
export function summaryLine(outcome: CallOutcome): string {
  const n = outcome.attempts.length;
  const attempts = `${n} attempt${n === 1 ? '' : 's'}`;
  const first = outcome.attempts[0]?.startedAt;
  const last = outcome.attempts.at(-1)?.endedAt;
  const took = first && last ? ` in ${formatMs(Date.parse(last) - Date.parse(first))}` : '';
  const billed = billedText(outcome.billed);
  const spent = outcome.spent ? `; spent ${spentText(outcome.spent)}` : '';
  const tail = `${billed ? `; billed ${billed}` : ''}${spent}; workflow ${outcome.workflowId}`;
  if (outcome.status === 'succeeded') {
    return `succeeded${outcome.model ? ` on ${outcome.model}` : ''} after ${attempts}${took}${tail}`;
  }
  if (outcome.status === 'cancelled') return `cancelled after ${attempts}${tail}`;
  const why = outcome.stopReason ?? outcome.closedAs ?? outcome.message ?? 'unknown';
  const lastFailure = outcome.attempts.findLast((a) => a.failure)?.failure;
  const lastText = lastFailure
    ? `; last: ${lastFailure.class}${lastFailure.status !== undefined ? ` ${lastFailure.status}` : ''}`
    : '';
  return `failed (${why}) after ${attempts}${took}${lastText}${tail}`;
}

/** What a budget counted: `1200 tokens (900 input + 300 output), 0.0012 USD`. */
export function spentText(spent: Spent): string {
  const usd = Number(spent.costUsd.toPrecision(4));
  return `${spent.totalTokens} tokens (${spent.inputTokens} input + ${spent.outputTokens} output), ${usd} USD`;
}

function billedText(billed: BilledTotals): string {
  const tokens =
    billed.inputTokens !== undefined || billed.outputTokens !== undefined
      ? `${billed.inputTokens ?? '?'} input + ${billed.outputTokens ?? '?'} output tokens`
      : '';
  return [tokens, billed.cost !== undefined ? `cost ${billed.cost}` : ''].filter(Boolean).join(', ');
}
