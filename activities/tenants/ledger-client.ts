/** A worker's round trips to a ledger: a lease by Update-with-Start, settlements by signal. */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { Amount, LeaseAnswer, LeaseRequest, TenantEnvelope } from '../../policy/index.js';
import {
  TENANT_LEASE_UPDATE,
  TENANT_LEDGER_WORKFLOW_TYPE,
  TENANT_SETTLE_SIGNAL,
} from '../../common/tenants.js';
import type { SettleBatch, TenantLedgerInput } from '../../common/tenants.js';

/** What a worker asks for beyond the attempt at hand: this share of each limit, so a burst needs few leases. */
const LEASE_SHARE = 0.05;

/**
 * Asks the ledger `ledgerId` for a lease, starting it on `taskQueue` if it is not running. The update's id is the
 * lease's: a request retried (by the client, or after a lost answer) is granted once.
 */
export function askLedger(
  client: Client,
  ledgerId: string,
  taskQueue: string,
  input: TenantLedgerInput,
  request: LeaseRequest,
  leaseId: string,
): Promise<LeaseAnswer> {
  const start = new WithStartWorkflowOperation(TENANT_LEDGER_WORKFLOW_TYPE, {
    workflowId: ledgerId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: `the ledger ${ledgerId}`,
    staticDetails: 'Leases and spend of one envelope: see `model-retry tenants`.',
  });
  return client.workflow.executeUpdateWithStart<Workflow, LeaseAnswer, [LeaseRequest]>(TENANT_LEASE_UPDATE, {
    args: [request],
    updateId: leaseId,
    startWorkflowOperation: start,
  });
}

/** Sends a batch of settlements to a running ledger. */
export async function sendSettlements(client: Client, ledgerId: string, batch: SettleBatch): Promise<void> {
  await client.workflow.getHandle(ledgerId).signal(TENANT_SETTLE_SIGNAL, batch);
}

/** What to ask for: the attempt's reservation, or a share of each limit when that is more. */
export function wantedOf(envelope: TenantEnvelope, least: Amount): Amount {
  return {
    tokens: Math.max(least.tokens, Math.ceil((envelope.maxTotalTokens ?? 0) * LEASE_SHARE)),
    costUsd: Math.max(least.costUsd, (envelope.maxCostUsd ?? 0) * LEASE_SHARE),
  };
}

/** How long a worker waits for a ledger's answer before it takes the ledger as unreachable (and sends nothing). */
export const LEDGER_ANSWER_MS = 10_000;

/**
 * `p`, or a rejection as soon as `signal` aborts (the attempt was given up: it must not wait on the ledger) or the
 * ledger has not answered within {@link LEDGER_ANSWER_MS} (no worker runs it, or Temporal is away): fail closed.
 */
export function abortable<T>(
  p: Promise<T>,
  signal: AbortSignal,
  ledger: string,
  taskQueue: string,
): Promise<T> {
  const givenUp = (): Error => new Error('the attempt was given up while it asked for a lease');
  if (signal.aborted) return Promise.reject(givenUp());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(givenUp());
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `no answer from ${ledger} within ${LEDGER_ANSWER_MS} ms: is a worker polling task queue "${taskQueue}"?`,
          ),
        ),
      LEDGER_ANSWER_MS,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** This process's name as a lease holder: host, process and a random part (two workers never share one). */
export function leaseHolderName(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}
