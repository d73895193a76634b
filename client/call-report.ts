import type { Usage } from '../common/attempt.js';
import type { Spent, StopReason } from '../policy/index.js';
import type { AttemptRecord, BilledTotals, ModelCallResult } from '../common/call.js';
import { billedTotals } from '../common/ledger/billed.js';
import type { CallHistory } from './history-reader.js';

/** The JSON a host reads for one call (`call --json`, `history --json`). */
export interface CallReport {
  workflowId: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'running' | 'terminated' | 'timed-out' | 'continued-as-new';
  stopReason?: StopReason;
  output?: ModelCallResult['output'];
  usage?: Usage;
  attempts: AttemptRecord[];
  billed: BilledTotals;
  /** A call with a budget: what it counted as spent, failed attempts included. */
  spent?: Spent;
  /** Why the call stopped, in words (its last decision), when the history says. */
  why?: string;
}

/** The report of a `modelCallWorkflow` run, from its history alone. */
export function callReport(workflowId: string, history: CallHistory): CallReport {
  const result = history.status === 'succeeded' ? (history.result as ModelCallResult | undefined) : undefined;
  return {
    workflowId,
    status: history.status,
    ...(history.stopReason ? { stopReason: history.stopReason } : {}),
    ...(result?.output ? { output: result.output } : {}),
    ...(result?.usage ? { usage: result.usage } : {}),
    attempts: history.attempts,
    billed: billedTotals(history.attempts),
    ...(history.spent ? { spent: history.spent } : {}),
    ...(history.why ? { why: history.why } : {}),
  };
}
