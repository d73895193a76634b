import type { Client } from '@temporalio/client';
import { tenantLedgerId } from '../../common/tenants.js';
import { countTypes, eventTimeMs } from '../lib/history.js';
import type { History } from '../lib/history.js';

/** What a tenant's ledger cost, read from its histories (every run, across continue-as-new). */
export interface LedgerTrips {
  tenant: string;
  runs: number;
  /** Lease updates the ledger accepted (a rejected update leaves no event and is not counted). */
  leaseUpdates: number;
  /** Settle signals (and any other signal). */
  signals: number;
  /** Billable actions of the ledger: its start, signals, updates and the commands it completed with. */
  actions: number;
  /** From the ledger's first event to its last, ms. */
  spanMs: number;
}

/** The event types that are one billable action each (a workflow's commands, signals and updates). */
const ACTION_EVENTS = [
  'WorkflowExecutionStarted',
  'WorkflowExecutionSignaled',
  'WorkflowExecutionUpdateAccepted',
  'TimerStarted',
  'ActivityTaskScheduled',
  'UpsertWorkflowSearchAttributes',
  'WorkflowPropertiesModified',
  'WorkflowExecutionContinuedAsNew',
];

/** Reads every run of `tenant`'s ledger (the visibility store lists them) and counts its round trips. */
export async function ledgerTrips(client: Client, tenant: string): Promise<LedgerTrips> {
  const id = tenantLedgerId(tenant);
  const histories: History[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${id}'` })) {
    histories.push(await client.workflow.getHandle(id, run.runId).fetchHistory());
  }
  let updates = 0;
  let signals = 0;
  let actions = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const h of histories) {
    const counts = countTypes(h);
    updates += counts.get('WorkflowExecutionUpdateAccepted') ?? 0;
    signals += counts.get('WorkflowExecutionSignaled') ?? 0;
    for (const t of ACTION_EVENTS) actions += counts.get(t) ?? 0;
    for (const e of h.events ?? []) {
      const at = eventTimeMs(e);
      if (at === 0) continue;
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
  }
  return {
    tenant,
    runs: histories.length,
    leaseUpdates: updates,
    signals,
    actions,
    spanMs: histories.length > 0 ? last - first : 0,
  };
}
