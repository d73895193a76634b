import type { Action, FailedAttemptFacts } from '../../policy/index.js';
import type { ContinuationFacts, ModelRequestResult, Usage } from '../attempt.js';

/**
 * What happens to a call's attempts, as facts: the workflow notes them as they happen, the history reader reads
 * them from a history, and one function (`attemptRecords`) turns them into the attempt records both show.
 * Every event but `opened` and `stopped` names its attempt by `modelCallId`; an event about an attempt the
 * ledger has not opened changes nothing.
 */
export type LedgerEvent =
  | AttemptOpened
  | AttemptDelivered
  | AttemptAnswered
  | AttemptFailed
  | AttemptCancelled
  | AttemptDecided
  | CallStopped;

/** An attempt was scheduled (the time its activity was scheduled). */
export interface AttemptOpened {
  kind: 'opened';
  modelCallId: string;
  callId: string;
  attempt: number;
  backend: number;
  model: string;
  startedAt: string;
  /** An attempt that continues a cut stream: the attempt whose delivered text it continues. */
  continues?: string;
}

/**
 * What a streamed attempt delivered to the stream by the time its end was handled. It comes before the
 * attempt's end, whose record (and whose failure's class: the stream-interrupted rule) it changes.
 */
export interface AttemptDelivered {
  kind: 'delivered';
  modelCallId: string;
  deltas: number;
  /** The characters of text it delivered (`text.length`). */
  chars: number;
  /** The call continues cut streams (`stream.onCut: 'continue'`): the record counts `chars`, the class stays. */
  continueOnCut: boolean;
}

/** The attempt answered (its activity completed); `result` absent when the history's result cannot be read. */
export interface AttemptAnswered {
  kind: 'answered';
  modelCallId: string;
  result?: ModelRequestResult;
}

/** The attempt failed (it raised, or timed out) with these facts. */
export interface AttemptFailed {
  kind: 'failed';
  modelCallId: string;
  facts: FailedAttemptFacts;
  /** When the attempt itself says it started (absent: the scheduling time stays). */
  startedAt?: string;
  endedAt: string;
  usage?: Usage;
  finishReason?: string;
  continuation?: ContinuationFacts;
}

/** The attempt was cancelled with its call. */
export interface AttemptCancelled {
  kind: 'cancelled';
  modelCallId: string;
  startedAt?: string;
  endedAt: string;
}

/**
 * What was decided after a failed attempt: the action, and the wait before the next attempt (absent when none
 * follows). From the workflow's decision, or in a history from the next attempt's input, a wait's timer or a
 * cooling check's marker (their summaries).
 */
export interface AttemptDecided {
  kind: 'decided';
  modelCallId: string;
  action?: Action;
  retryInMs?: number;
}

/**
 * The run's last call stopped with this action (its result's or `ModelCallFailed`'s last decision): the last
 * attempt's failure takes it unless a decision already named one.
 */
export interface CallStopped {
  kind: 'stopped';
  action?: Action;
}
