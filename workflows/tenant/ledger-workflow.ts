/**
 * A tenant's ledger: one long-running workflow per tenant and namespace (`model-retry-tenant:<tenant>`), owning
 * the tenant's envelope. Workers lease allowances from it by Update (the update's id is the lease's, so a retried
 * lease is granted once), settle what was billed by signal, and an operator sets or resets it by signal. Every
 * rule is `policy/envelope.ts`'s; the workflow only keeps the state and continues as new before its history grows
 * large. It keeps no memo (each upsert would cost an action per change): its query answers `model-retry tenants`.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  defineQuery,
  defineSignal,
  defineUpdate,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  envelopeView,
  grantLease,
  initialLedger,
  resetLedger,
  setEnvelope,
  settle,
} from '../../policy/index.js';
import type { Amount, LeaseAnswer, LeaseRequest, Settlement, TenantEnvelope } from '../../policy/index.js';
import {
  TENANT_LEASE_UPDATE,
  TENANT_QUERY,
  TENANT_RESET_SIGNAL,
  TENANT_SET_SIGNAL,
  TENANT_SETTLE_SIGNAL,
} from '../../common/tenants.js';
import type { SettleBatch, TenantLedgerInput, TenantSnapshot } from '../../common/tenants.js';

export const tenantLeaseUpdate = defineUpdate<LeaseAnswer, [LeaseRequest]>(TENANT_LEASE_UPDATE);
export const tenantSettleSignal = defineSignal<[SettleBatch]>(TENANT_SETTLE_SIGNAL);
/** Sets the tenant's envelope by hand (`model-retry tenants set`): it holds over every worker's file. */
export const tenantSetSignal = defineSignal<[TenantEnvelope]>(TENANT_SET_SIGNAL);
/** Forgets the period's spend and every lease (`model-retry tenants reset NAME`). */
export const tenantResetSignal = defineSignal<[]>(TENANT_RESET_SIGNAL);
/** The ledger's envelope, spend, leases and renewal. */
export const tenantQuery = defineQuery<TenantSnapshot>(TENANT_QUERY);

/** Continue as new after this many events (the state is small: a few leases per worker, bounded spend). */
const CONTINUE_AFTER_EVENTS = 2_000;
/** The longest lease a worker may ask for: a lease it never settles holds its room this long at most. */
export const MAX_LEASE_TTL_MS = 5 * 60_000;

const isAmount = (a: unknown): boolean =>
  typeof a === 'object' &&
  a !== null &&
  Number.isFinite((a as { tokens?: unknown }).tokens) &&
  Number.isFinite((a as { costUsd?: unknown }).costUsd);

/** The tenant ledger. Runs until terminated, continuing as new. */
export async function modelRetryTenantLedgerWorkflow(input: TenantLedgerInput): Promise<void> {
  let state = input.state ?? initialLedger(input.envelope, Date.now());

  setHandler(
    tenantLeaseUpdate,
    (request) => {
      const id = currentUpdateInfo()?.id ?? `${request.worker}/${Date.now()}`;
      const granted = grantLease(state, request, id, Date.now());
      state = granted.state;
      return granted.answer;
    },
    {
      // A malformed request is refused before it enters the history.
      validator: (request) => {
        if (typeof request?.worker !== 'string' || !isAmount(request.wanted) || !isAmount(request.least))
          throw new Error('a lease request needs `worker`, `wanted` and `least` ({ tokens, costUsd })');
        if (typeof request.envelope !== 'object' || request.envelope === null)
          throw new Error("a lease request needs the `envelope` of the worker's tenants file");
        const parts: unknown[] = [
          ...(request.settle ?? []).flatMap((t: Settlement) => [t.billed, t.reserved]),
          ...(request.shrink ?? []).map((c: { keep: Amount }) => c.keep),
        ];
        if (!parts.every(isAmount))
          throw new Error("a lease request's `settle` and `shrink` amounts must be { tokens, costUsd }");
        if (!(request.ttlMs > 0 && request.ttlMs <= MAX_LEASE_TTL_MS))
          throw new Error(`a lease's \`ttlMs\` must be above 0 and at most ${MAX_LEASE_TTL_MS}`);
      },
    },
  );
  setHandler(tenantSettleSignal, (batch) => {
    // A malformed settlement is dropped: one bad signal must not stall the ledger (a handler that throws fails the
    // workflow task on every retry) or poison the period's spend with a NaN.
    const settlements = Array.isArray(batch?.settlements)
      ? batch.settlements.filter(
          (t) => typeof t?.leaseId === 'string' && isAmount(t.billed) && isAmount(t.reserved),
        )
      : [];
    state = settle(state, settlements, Date.now());
  });
  setHandler(tenantSetSignal, (envelope) => {
    state = setEnvelope(state, envelope, Date.now());
  });
  setHandler(tenantResetSignal, () => {
    state = resetLedger(state, Date.now());
  });
  setHandler(tenantQuery, (): TenantSnapshot => {
    const now = Date.now();
    const view = envelopeView(state, now);
    return {
      tenant: input.tenant,
      envelope: state.envelope,
      source: state.source,
      ...view,
      leases: state.leases,
      overBilled: state.overBilled,
      disagreements: state.disagreements,
      asOf: now,
    };
  });

  await condition(
    () => workflowInfo().historyLength > CONTINUE_AFTER_EVENTS || workflowInfo().continueAsNewSuggested,
  );
  await condition(allHandlersFinished);
  await continueAsNew<typeof modelRetryTenantLedgerWorkflow>({ ...input, envelope: state.envelope, state });
}
