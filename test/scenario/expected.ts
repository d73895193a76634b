/**
 * The oracle's own tables, written from the contract's text and not imported from policy/: what class a scripted
 * fault must be recorded as, and what a class's action is. A suite that asked policy/ would agree with any bug.
 */
import type { Fault } from './scenario.js';

/** The contract's default action per failure class (`stop` for `StreamInterrupted`). */
export const DEFAULT_ACTION: Record<string, string> = {
  StreamInterrupted: 'stop',
  CoolingDown: 'advance',
  Misconfigured: 'drop',
  ContentFiltered: 'drop',
  ContextTooLong: 'drop',
  QuotaExhausted: 'drop',
  AuthFailed: 'drop',
  ModelNotFound: 'drop',
  RateLimited: 'advance',
  BadRequest: 'abort',
  RequestTimeout: 'retry-same',
  ServerError: 'retry-same',
  ConnectFailed: 'retry-same',
  ConnectionLost: 'retry-same',
  OutputLimit: 'drop',
  SchemaMismatch: 'repair',
  ParseFailed: 'advance',
  ResponseTimeout: 'advance',
  WorkerLost: 'retry-same',
  Unknown: 'retry-same',
};

/**
 * The action the call must take for a class: the plan's override, else `x-should-retry` (true: retry-same,
 * false: drop), else the table.
 */
export function intendedAction(
  cls: string,
  overrides: Record<string, string> | undefined,
  shouldRetry: boolean | undefined,
): string {
  if (cls === 'StreamInterrupted') return 'stop';
  const override = overrides?.[cls];
  if (override !== undefined) return override;
  if (shouldRetry !== undefined) return shouldRetry ? 'retry-same' : 'drop';
  return DEFAULT_ACTION[cls] ?? 'retry-same';
}

/** The class of an HTTP error status (the contract's table, first match wins). */
export function statusClass(status: number, quota: boolean): string {
  if (status === 429) return quota ? 'QuotaExhausted' : 'RateLimited';
  if (status === 401 || status === 403) return 'AuthFailed';
  if (status === 404) return 'ModelNotFound';
  if (status === 408 || status === 425) return 'RequestTimeout';
  if (status >= 500 || status === 529) return 'ServerError';
  return 'BadRequest';
}

/** Leeway around an attempt's timeout, where either side of the race may win. */
const RACE_MS = 500;

/**
 * The outcomes a request answered by `fault` may be recorded with: `succeeded` or a failure class. `timeoutMs`
 * is the attempt's own timeout T; a fault slower than T is a `ResponseTimeout`, one near T may be either.
 * `stream` is the request's; `scriptsStream` the one the fault's loopback step was built for (`stepOf`), which
 * differs for a neighbour's request on the main call's scripts. `continueOnCut`: the call continues cut streams
 * (`stream.onCut: 'continue'`), where a cut keeps its own class, never `StreamInterrupted`.
 */
export function expectedOutcomes(
  fault: Fault,
  stream: boolean,
  timeoutMs: number,
  scriptsStream = stream,
  continueOnCut = false,
): string[] {
  const outcomes = scriptsStream === stream ? ownOutcomes(fault, stream) : crossedOutcomes(fault, stream);
  const own = continueOnCut ? outcomes.filter((o) => o !== 'StreamInterrupted') : outcomes;
  const delay = fault.kind === 'hang' ? Infinity : 'delayMs' in fault ? fault.delayMs : 0;
  if (delay > timeoutMs + RACE_MS) return ['ResponseTimeout'];
  if (delay >= timeoutMs - RACE_MS) return [...own, 'ResponseTimeout'];
  return own;
}

/**
 * A step built for the other kind of request (`stepOf`). Built for a stream, met by a plain request: `stream-cut`
 * is a whole answer (the loopback ignores `cutAfterChunks` without a stream) and `clean-cut` a body of server-sent
 * events where JSON was expected. Built for a plain request, met by a stream: both are `cut`.
 */
function crossedOutcomes(fault: Fault, stream: boolean): string[] {
  if (fault.kind === 'stream-cut' || fault.kind === 'stall')
    return stream ? ownOutcomes({ kind: 'cut' }, true) : ['succeeded'];
  if (fault.kind === 'clean-cut') return stream ? ownOutcomes({ kind: 'cut' }, true) : ['ParseFailed'];
  return ownOutcomes(fault, stream);
}

function ownOutcomes(fault: Fault, stream: boolean): string[] {
  switch (fault.kind) {
    case 'ok':
      return ['succeeded'];
    case 'status':
      return [statusClass(fault.status, fault.quota === true)];
    case 'drop':
      return ['ConnectionLost'];
    case 'cut':
      return stream ? ['ConnectionLost', 'StreamInterrupted'] : ['ConnectionLost'];
    case 'stream-cut':
      if (!stream) return ['ConnectionLost'];
      return fault.chunks === 0 ? ['ConnectionLost'] : ['StreamInterrupted', 'ConnectionLost'];
    case 'stall':
      // It times out during the stall, or (with no plan: a timeout of minutes) breaks after it.
      if (!stream) return ['ConnectionLost'];
      return fault.chunks === 0
        ? ['ResponseTimeout', 'ConnectionLost']
        : ['StreamInterrupted', 'ResponseTimeout', 'ConnectionLost'];
    case 'clean-cut':
      // A stream that ends without its finish event is ConnectionLost, StreamInterrupted once a delta got out.
      return stream ? ['StreamInterrupted', 'ConnectionLost'] : ['ConnectionLost'];
    case 'empty-length':
      return ['OutputLimit'];
    case 'malformed':
      return ['ParseFailed'];
    case 'hang':
      return ['ResponseTimeout'];
  }
}
