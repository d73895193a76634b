import { setHandler } from '@temporalio/workflow';
import type { AttemptRecord, CallStatus } from '../../common/call.js';
import { attemptsQuery, statusQuery } from '../../common/queries.js';

/**
 * The model calls of this workflow execution (module state is per workflow in Temporal's sandbox): their
 * attempt records and status, for the `attempts` and `status` queries, and the call counter behind
 * `callId` = `c<k>`.
 */
interface CallEntry {
  records: AttemptRecord[];
  status: CallStatus;
}

const calls: CallEntry[] = [];
let callsStarted = 0;

/** The next call's id, `c<k>`; k counts the calls of the workflow chain. */
export function nextCallId(): string {
  callsStarted += 1;
  return `c${callsStarted}`;
}

/** How many calls this workflow chain has started (carry it across continue-as-new with `resumeCallCount`). */
export function callCount(): number {
  return callsStarted;
}

/** After continue-as-new: continue counting calls from `count`. */
export function resumeCallCount(count: number): void {
  callsStarted = Math.max(callsStarted, count);
}

export function openCallEntry(status: CallStatus): CallEntry {
  const entry: CallEntry = { records: [], status };
  calls.push(entry);
  return entry;
}

/** Copies of every attempt record of every call of this run so far, in order. */
export function runAttempts(): AttemptRecord[] {
  return calls.flatMap((c) => c.records.map((r) => ({ ...r })));
}

/** Answers `attempts` and `status` from this workflow. `modelCallWorkflow` does it; a user's workflow may too. */
export function registerModelCallQueries(): void {
  setHandler(attemptsQuery, () => calls.flatMap((c) => c.records.map((r) => ({ ...r }))));
  setHandler(statusQuery, () => {
    const last = calls.at(-1);
    return last ? { ...last.status } : undefined;
  });
}
