import { failedAttempt } from '../../policy/index.js';
import type { AttemptDecision, Failure } from '../../policy/index.js';
import type { AttemptRecord } from '../../common/call.js';
import type { Delivered } from '../stream.js';
import type { AttemptOutcome } from './attempt-outcome.js';
import { iso } from './call-summary.js';

/**
 * A new attempt's record, started now: the time its activity is scheduled, which is what the history reader
 * rebuilds (the command's time), so nothing that moves workflow time (a local activity) may come in between.
 */
export function openedRecord(callId: string, model: string, decision: AttemptDecision): AttemptRecord {
  const attempt = decision.state.attempts;
  return {
    modelCallId: `${callId}.${attempt}`,
    callId,
    attempt,
    backend: decision.backend,
    model,
    startedAt: iso(Date.now()),
    outcome: 'running',
  };
}

/**
 * Writes a failed attempt into its record as the history reader will (`failedAttempt` on the same facts, with the
 * deltas the stream delivered), and returns the failure the policy decides on.
 */
export function writeFailed(
  record: AttemptRecord,
  outcome: Extract<AttemptOutcome, { kind: 'failed' }>,
  delivered: Delivered | undefined,
  continueOnCut: boolean,
): Failure {
  const { failure, record: recorded } = failedAttempt({
    ...outcome.facts,
    ...(delivered ? { deltasDelivered: delivered.deltas } : {}),
    ...(continueOnCut ? { continueOnCut } : {}),
  });
  record.outcome = 'failed';
  record.failure = recorded;
  if (outcome.usage) record.usage = outcome.usage;
  if (outcome.finishReason !== undefined) record.finishReason = outcome.finishReason;
  if (outcome.continuation) record.continuation = outcome.continuation;
  if (delivered) record.streamedDeltas = delivered.deltas;
  return failure;
}
