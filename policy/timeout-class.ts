import type { FailureClass } from './classes.js';
import { classify, isDeadlineTimeout } from './classify.js';
import type { ObservedTimeoutType } from './observation.js';

/** What a Temporal activity timeout means for an attempt: its class, its record message, and whether it is the deadline. */
export interface TimeoutFacts {
  class: FailureClass;
  message: string;
  /** Temporal's `SCHEDULE_TO_CLOSE` fired: the deadline (less the reserve) was reached, the call stops `deadline`. */
  deadlineReached: boolean;
}

const MESSAGES: Readonly<Record<ObservedTimeoutType, string>> = {
  HEARTBEAT: 'no heartbeat from the worker running the attempt: it was lost',
  START_TO_CLOSE: 'the attempt did not finish within its start-to-close timeout',
  SCHEDULE_TO_CLOSE: 'the deadline (less the reserve) was reached during the attempt',
  SCHEDULE_TO_START: 'no worker picked up the attempt in time',
};

/** Temporal's `TimeoutType` enum as its numbers (history protos) list it. */
const BY_NUMBER = ['UNSPECIFIED', 'START_TO_CLOSE', 'SCHEDULE_TO_START', 'SCHEDULE_TO_CLOSE', 'HEARTBEAT'];

/**
 * The one timeout -> class table, for the workflow (which sees `TimeoutFailure.timeoutType`, a name) and the
 * history reader (which sees the proto's number, or a `TIMEOUT_TYPE_` name in JSON histories): both get the same
 * class and message from the same facts. The class comes from `classify`, so the contract's table stays the only
 * place that maps a timeout to a class.
 */
export function timeoutFacts(timeoutType: unknown): TimeoutFacts {
  const type = timeoutTypeOf(timeoutType);
  const observation = type ? { timeoutType: type } : {};
  return {
    class: classify(observation),
    message: type ? MESSAGES[type] : 'timed out',
    deadlineReached: isDeadlineTimeout(observation),
  };
}

/** A timeout type as a name (`HEARTBEAT`), from a name, a `TIMEOUT_TYPE_` name or the proto's number. */
export function timeoutTypeOf(value: unknown): ObservedTimeoutType | undefined {
  const name =
    typeof value === 'number'
      ? BY_NUMBER[value]
      : typeof value === 'string'
        ? value.replace(/^TIMEOUT_TYPE_/, '')
        : undefined;
  return name !== undefined && Object.hasOwn(MESSAGES, name) ? (name as ObservedTimeoutType) : undefined;
}
