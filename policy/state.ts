/**
 * What the policy remembers about one call between decisions. Plain JSON: it lives in workflow state and
 * crosses continue-as-new. Never mutated: every decision returns a new state.
 */
export interface CallState {
  /** How many backends the chain has (indexes 0 .. backendCount − 1). */
  backendCount: number;
  /** Attempts started so far, including the one a decision schedules. */
  attempts: number;
  /** Waits taken so far (an immediate advance is not a wait): the index of the next planned wait. */
  waitsTaken: number;
  /** The backend index of the latest attempt. */
  backend: number;
  /** The round through the chain, from 1: a new round starts when an advance runs past the last backend. */
  round: number;
  /** Backend indexes dropped for the rest of the call, in the order they were dropped. */
  dropped: number[];
  /** Same-backend retries in a row on the current backend. */
  sameBackendRetries: number;
  /**
   * Repairs (`repair` after a `SchemaMismatch`) in a row on the current backend, counted apart from
   * `sameBackendRetries`; both restart when another backend (or a new round) is tried. Absent in a state saved
   * before repairs existed: 0.
   */
  repairs?: number;
  /**
   * The backend this round started at. A round tries its backends in chain order from there, wrapping around past
   * the last to the ones before it (a round starts past the first backend when a retry-after or a cool-down kept
   * the first ones out). Absent in a state saved before rounds remembered it: 0.
   */
  roundStart?: number;
  /**
   * Backends this round passed over while a retry-after kept them out (an advance at once went to a later one):
   * still untried in it, so the round comes back to them once they are free. Absent: none.
   */
  passed?: number[];
  /**
   * Waits for cooling backends taken so far (fleet health's waits, not the plan's). They take no entry of `waits`
   * (the next planned wait is still the next entry), but without a deadline they count toward the list's length,
   * which bounds every wait of the call. Absent in a state saved before: 0.
   */
  coolingWaits?: number;
  /** Per backend index, the epoch ms before which it is not tried (from retry-after); 0 for none. */
  notBefore: number[];
  /**
   * Per backend index, the epoch ms until which fleet health keeps it cooling (from a `CoolingDown` failure);
   * absent or 0 for none. Optional so that states recorded before fleet health still read.
   */
  coolingUntil?: number[];
}

/** The state of a call that has made no attempt yet over a chain of `backendCount` backends. */
export function initialState(backendCount: number): CallState {
  if (!Number.isInteger(backendCount) || backendCount < 1) {
    throw new RangeError(`backendCount must be a whole number of at least 1, not ${backendCount}.`);
  }
  return {
    backendCount,
    attempts: 0,
    waitsTaken: 0,
    backend: 0,
    round: 1,
    roundStart: 0,
    dropped: [],
    sameBackendRetries: 0,
    repairs: 0,
    coolingWaits: 0,
    notBefore: new Array<number>(backendCount).fill(0),
  };
}

/** A copy that shares nothing mutable with `state`. */
export function copyState(state: CallState): CallState {
  const copy = { ...state, dropped: [...state.dropped], notBefore: [...state.notBefore] };
  if (state.coolingUntil !== undefined) copy.coolingUntil = [...state.coolingUntil];
  if (state.passed !== undefined) copy.passed = [...state.passed];
  return copy;
}

/** The backend indexes not dropped, lowest first. */
export function remainingBackends(state: CallState): number[] {
  const out: number[] = [];
  for (let i = 0; i < state.backendCount; i++) if (!state.dropped.includes(i)) out.push(i);
  return out;
}

/** The backend the current round started at (0 in a state saved before rounds remembered it). */
export function roundStartOf(state: CallState): number {
  return state.roundStart ?? 0;
}

/** Waits for cooling backends taken so far (0 in a state saved before they were counted). */
export function coolingWaitsOf(state: CallState): number {
  return state.coolingWaits ?? 0;
}

/**
 * The backends not yet tried in this round and not dropped, in the order the round comes to them: after the
 * current one in chain order, wrapping around past the last to those before the one the round started at, then
 * those it passed over while they were kept out (`passed`). (A round moves on in chain order, so the others from
 * its start up to the current one are the ones it tried.)
 */
export function untriedInRound(state: CallState): number[] {
  const start = roundStartOf(state);
  const out: number[] = [];
  for (let k = 1; k < state.backendCount; k++) {
    const i = (state.backend + k) % state.backendCount;
    if (i === start) break;
    if (!state.dropped.includes(i)) out.push(i);
  }
  for (const i of state.passed ?? []) {
    if (i !== state.backend && !state.dropped.includes(i) && !out.includes(i)) out.push(i);
  }
  return out;
}

/** The epoch ms before which backend `index` is not tried (0 for none). */
export function notBeforeOf(state: CallState, index: number): number {
  return state.notBefore[index] ?? 0;
}

/** The epoch ms until which fleet health keeps backend `index` cooling (0 for none). */
export function coolingUntilOf(state: CallState, index: number): number {
  return state.coolingUntil?.[index] ?? 0;
}

/** Records that backend `index` is cooling until `untilMs` (it is also not tried before then). */
export function markCooling(state: CallState, index: number, untilMs: number): void {
  const cooling = state.coolingUntil ?? new Array<number>(state.backendCount).fill(0);
  cooling[index] = Math.max(cooling[index] ?? 0, untilMs);
  state.coolingUntil = cooling;
  state.notBefore[index] = Math.max(notBeforeOf(state, index), untilMs);
}
