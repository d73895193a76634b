import type { AttemptDecision } from '../../policy/index.js';
import type { AttemptCancelled, AttemptFailed, AttemptOpened } from '../../common/ledger/events.js';
import { iso } from '../../common/iso.js';
import type { AttemptOutcome } from './attempt-outcome.js';

/**
 * The ledger event of a new attempt, started now: the time its activity is scheduled, which is what the history
 * reader rebuilds (the command's time), so nothing that moves workflow time (a local activity) may come in between.
 */
export function openedEvent(
  callId: string,
  model: string,
  decision: AttemptDecision,
  continues: string | undefined,
): AttemptOpened {
  const attempt = decision.state.attempts;
  return {
    kind: 'opened',
    modelCallId: `${callId}.${attempt}`,
    callId,
    attempt,
    backend: decision.backend,
    model,
    startedAt: iso(Date.now()),
    ...(continues !== undefined ? { continues } : {}),
  };
}

/** The ledger event of an attempt cancelled with its call, as the history reader reads it. */
export function cancelledEvent(
  modelCallId: string,
  outcome: Extract<AttemptOutcome, { kind: 'cancelled' }>,
): AttemptCancelled {
  return { kind: 'cancelled', modelCallId, ...timesOf(outcome) };
}

/** The ledger event of a failed attempt, as the history reader reads it from the activity's end event. */
export function failedEvent(
  modelCallId: string,
  outcome: Extract<AttemptOutcome, { kind: 'failed' }>,
): AttemptFailed {
  return {
    kind: 'failed',
    modelCallId,
    facts: outcome.facts,
    ...timesOf(outcome),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    ...(outcome.finishReason !== undefined ? { finishReason: outcome.finishReason } : {}),
    ...(outcome.continuation ? { continuation: outcome.continuation } : {}),
  };
}

/** The attempt's own times when it says them, else it ended now (the time the workflow handled its end). */
function timesOf(outcome: AttemptOutcome): { startedAt?: string; endedAt: string } {
  return {
    ...(outcome.startedAt ? { startedAt: outcome.startedAt } : {}),
    endedAt: outcome.endedAt ?? iso(Date.now()),
  };
}
