import { failedAttempt } from '../../policy/index.js';
import type { Failure } from '../../policy/index.js';
import type { AttemptRecord } from '../call.js';
import type { AttemptFailed, AttemptOpened, LedgerEvent } from './events.js';

export type { LedgerEvent } from './events.js';

/**
 * The attempt records of a list of ledger events: the one function the workflow and the history reader build
 * records with, so that theirs are equal by construction. Pure: a fold of the ledger's step from an empty ledger.
 */
export function attemptRecords(events: Iterable<LedgerEvent>): AttemptRecord[] {
  const ledger = new Ledger();
  for (const event of events) ledger.note(event);
  return ledger.records;
}

/** What the fold carries besides the records. */
interface Folded {
  readonly records: AttemptRecord[];
  readonly byId: Map<string, AttemptRecord>;
  /** What each streamed attempt delivered, until its end is noted. */
  readonly delivered: Map<string, Delivered>;
}

type Delivered = { deltas: number; continueOnCut: boolean };

/**
 * Attempt records folded from ledger events one at a time (the workflow's way: one step per event, never the
 * whole list again). Records are updated in place, so a record handed out earlier shows every later event.
 */
export class Ledger {
  private readonly folded: Folded;

  /** `records`: the array to keep the records in (the workflow's, which its `attempts` query reads). */
  constructor(records: AttemptRecord[] = []) {
    this.folded = { records, byId: new Map(records.map((r) => [r.modelCallId, r])), delivered: new Map() };
  }

  /** Every record so far, in the order the attempts opened. */
  get records(): AttemptRecord[] {
    return this.folded.records;
  }

  /** Notes `event`; returns the record it changed (none: the event changed nothing). */
  note(event: LedgerEvent): AttemptRecord | undefined {
    return step(this.folded, event).record;
  }

  /** Notes that an attempt opened; returns its record. */
  open(event: AttemptOpened): AttemptRecord {
    return step(this.folded, event).record as AttemptRecord;
  }

  /** Notes that an attempt failed; returns the failure the policy decides on (the stream rule applied). */
  fail(event: AttemptFailed): Failure {
    const { failure } = step(this.folded, event);
    // An attempt the ledger never opened: the same failure, which no record shows.
    return failure ?? failedAttempt(event.facts).failure;
  }
}

/** The step of the fold: what one event changes in the records (and, for a failure, what the policy is told). */
function step(folded: Folded, event: LedgerEvent): { record?: AttemptRecord; failure?: Failure } {
  if (event.kind === 'opened') {
    const { modelCallId, callId, attempt, backend, model, startedAt, continues } = event;
    const record: AttemptRecord = {
      modelCallId,
      callId,
      attempt,
      backend,
      model,
      startedAt,
      outcome: 'running',
    };
    if (continues !== undefined) record.continues = continues;
    folded.records.push(record);
    folded.byId.set(modelCallId, record);
    return { record };
  }
  if (event.kind === 'stopped') {
    const last = folded.records.at(-1);
    if (event.action === undefined || !last?.failure || last.failure.action !== undefined) return {};
    last.failure.action = event.action;
    return { record: last };
  }
  const record = folded.byId.get(event.modelCallId);
  if (!record) return {};
  switch (event.kind) {
    case 'delivered':
      if (event.continueOnCut) record.deliveredChars = event.chars;
      folded.delivered.set(event.modelCallId, { deltas: event.deltas, continueOnCut: event.continueOnCut });
      return { record };
    case 'answered': {
      record.outcome = 'succeeded';
      const { result } = event;
      if (result) {
        record.startedAt = result.startedAt;
        record.endedAt = result.endedAt;
        record.finishReason = result.finishReason;
        if (result.usage) record.usage = result.usage;
        if (result.responseId !== undefined) record.responseId = result.responseId;
        if (result.provider !== undefined) record.provider = result.provider;
        if (result.cost !== undefined) record.cost = result.cost;
        if (result.continuation !== undefined) record.continuation = result.continuation;
      }
      return { record: withDeltas(record, takeDelivered(folded, event.modelCallId)) };
    }
    case 'failed': {
      const delivered = takeDelivered(folded, event.modelCallId);
      // The stream rule, by policy's function: an attempt that delivered deltas is `StreamInterrupted`, unless
      // its call continues cut streams.
      const { failure, record: recorded } = failedAttempt({
        ...event.facts,
        ...(delivered ? { deltasDelivered: delivered.deltas } : {}),
        ...(delivered?.continueOnCut ? { continueOnCut: true } : {}),
      });
      if (event.startedAt) record.startedAt = event.startedAt;
      record.endedAt = event.endedAt;
      record.outcome = 'failed';
      record.failure = recorded;
      if (event.usage) record.usage = event.usage;
      if (event.finishReason !== undefined) record.finishReason = event.finishReason;
      if (event.continuation) record.continuation = event.continuation;
      return { record: withDeltas(record, delivered), failure };
    }
    case 'cancelled':
      if (event.startedAt) record.startedAt = event.startedAt;
      record.endedAt = event.endedAt;
      record.outcome = 'cancelled';
      return { record: withDeltas(record, takeDelivered(folded, event.modelCallId)) };
    case 'decided':
      if (!record.failure) return {};
      if (event.action !== undefined) record.failure.action = event.action;
      if (event.retryInMs !== undefined) record.retryInMs = event.retryInMs;
      return { record };
  }
}

function takeDelivered(folded: Folded, modelCallId: string): Delivered | undefined {
  const delivered = folded.delivered.get(modelCallId);
  folded.delivered.delete(modelCallId);
  return delivered;
}

/** A streamed attempt's record counts the deltas it delivered (set last, as the records always had it). */
function withDeltas(record: AttemptRecord, delivered: Delivered | undefined): AttemptRecord {
  if (delivered) record.streamedDeltas = delivered.deltas;
  return record;
}
