import type { temporal } from '@temporalio/proto';
import type { Spent, StopReason } from '../policy/index.js';
import type { AttemptRecord, LastDecision, ModelCallFailedDetails, ModelCallResult } from '../common/call.js';
import { MODEL_CALL_FAILED } from '../common/call.js';
import { attemptRecords } from '../common/ledger/ledger.js';
import { firstPayload, HistoryIndex } from './history-events.js';
import { historyLedgerEvents } from './history-ledger.js';

/** What a history says about a run's model calls. */
export interface CallHistory {
  status: 'running' | 'succeeded' | 'failed' | 'cancelled' | 'terminated' | 'timed-out' | 'continued-as-new';
  /** The stop reason of the run's (last) call, when the run closed and it can be told. */
  stopReason?: StopReason;
  attempts: AttemptRecord[];
  /** The workflow's result when it completed (a `ModelCallResult` for `modelCallWorkflow`). */
  result?: unknown;
  /** The message of the workflow's failure, when it failed. */
  failureMessage?: string;
  /** A call that stopped `stream-interrupted`: the text that had reached the stream. */
  partialText?: string;
  /** A call with a budget: what it counted as spent (from its result or `ModelCallFailed` details). */
  spent?: Spent;
  /** Why the run's last call stopped, in words (its last decision), when the history says. */
  why?: string;
}

/**
 * Rebuilds every attempt record from the event history alone (no worker, no query): the attempt activities'
 * inputs, results, failures, timeouts and cancellations, and the decisions carried by the next attempt's input
 * and by the call's result or `ModelCallFailed` details. They are read as ledger events and folded by the
 * ledger's one function (`attemptRecords`), as the workflow folds its own: the records equal the workflow's.
 */
export function readCallHistory(history: temporal.api.history.v1.IHistory): CallHistory {
  const index = new HistoryIndex(history.events ?? []);
  const last = lastDecision(index);
  // The last attempt's action comes from the call's result or its `ModelCallFailed` details.
  const stopped = {
    kind: 'stopped',
    ...(last?.action !== undefined ? { action: last.action } : {}),
  } as const;
  const attempts = attemptRecords([...historyLedgerEvents(index), stopped]);
  return { ...closeOfRun(index), attempts, ...(last?.why ? { why: last.why } : {}) };
}

function closeOfRun(index: HistoryIndex): Omit<CallHistory, 'attempts'> {
  for (const event of index.events) {
    const done = event.workflowExecutionCompletedEventAttributes;
    if (done) {
      const result = firstPayload<unknown>(done.result);
      const { stopReason, spent } = (result ?? {}) as Partial<ModelCallResult>;
      return {
        status: 'succeeded',
        ...(stopReason ? { stopReason } : {}),
        ...(spent ? { spent } : {}),
        result,
      };
    }
    const failed = event.workflowExecutionFailedEventAttributes;
    if (failed) {
      const info = failed.failure?.applicationFailureInfo;
      const details =
        info?.type === MODEL_CALL_FAILED ? firstPayload<ModelCallFailedDetails>(info.details) : undefined;
      return {
        status: 'failed',
        ...(details ? { stopReason: details.stopReason } : {}),
        ...(details?.partialText !== undefined ? { partialText: details.partialText } : {}),
        ...(details?.spent ? { spent: details.spent } : {}),
        failureMessage: failed.failure?.message ?? '',
      };
    }
    if (event.workflowExecutionCanceledEventAttributes)
      return { status: 'cancelled', stopReason: 'cancelled' };
    if (event.workflowExecutionTerminatedEventAttributes) return { status: 'terminated' };
    if (event.workflowExecutionTimedOutEventAttributes) return { status: 'timed-out' };
    if (event.workflowExecutionContinuedAsNewEventAttributes) return { status: 'continued-as-new' };
  }
  return { status: 'running' };
}

/**
 * The decision that ended the run's last call: from `ModelCallFailed` details, or from a completed result that
 * carries one (an agent turn that stopped on its deadline during a model call).
 */
function lastDecision(index: HistoryIndex): LastDecision | undefined {
  for (const event of index.events) {
    const info = event.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
    if (info?.type === MODEL_CALL_FAILED)
      return firstPayload<ModelCallFailedDetails>(info.details)?.lastDecision;
    const done = event.workflowExecutionCompletedEventAttributes;
    if (done) return firstPayload<{ lastDecision?: LastDecision }>(done.result)?.lastDecision;
  }
  return undefined;
}
