/**
 * Tenants' plain data that crosses Temporal: the tenants file's shape, the tenant ledger's id, its update, signals
 * and query, and their payloads. One ledger workflow per tenant and namespace owns the tenant's envelope (what it
 * may spend per period); workers lease allowances from it and reserve each attempt against their lease before
 * sending (see `policy/envelope.ts` for the rules, `workflows/tenant/` for the ledger, `activities/tenants/` for
 * the worker's side).
 */
import type {
  Amount,
  Disagreement,
  Lease,
  Settlement,
  TenantEnvelope,
  TenantLedgerState,
} from '../policy/envelope.js';

export type {
  Amount,
  Disagreement,
  Lease,
  LeaseAnswer,
  LeaseRequest,
  Settlement,
  SpendEntry,
  TenantEnvelope,
  TenantLedgerState,
  TenantPeriod,
} from '../policy/envelope.js';

/** The tenant whose envelope holds for every tenant the file does not name. */
export const DEFAULT_TENANT = '*';

/** The tenants file: tenant name (or `*`) -> envelope. */
export type TenantsConfig = Record<string, TenantEnvelope>;

/** The ledger workflow's type name. */
export const TENANT_LEDGER_WORKFLOW_TYPE = 'modelRetryTenantLedgerWorkflow';
/** The id prefix of every tenant ledger (what `model-retry tenants` lists). */
export const TENANT_LEDGER_ID_PREFIX = 'model-retry-tenant:';
/** Update: a worker leases an allowance ({@link LeaseRequest} -> {@link LeaseAnswer}); its update id is the lease id. */
export const TENANT_LEASE_UPDATE = 'modelRetryTenantLease';
/** Signal: a worker settles leases it is done with ({@link SettleBatch}). */
export const TENANT_SETTLE_SIGNAL = 'modelRetryTenantSettle';
/** Signal: an operator sets the envelope ({@link TenantEnvelope}; `model-retry tenants set`), over the files'. */
export const TENANT_SET_SIGNAL = 'modelRetryTenantSet';
/** Signal: an operator clears the period's spend and every lease (`model-retry tenants reset NAME`). */
export const TENANT_RESET_SIGNAL = 'modelRetryTenantReset';
/** Query: the ledger's {@link TenantSnapshot}. */
export const TENANT_QUERY = 'modelRetryTenant';

/** The ledger of `tenant` in its namespace: `model-retry-tenant:<tenant>`. */
export function tenantLedgerId(tenant: string): string {
  return `${TENANT_LEDGER_ID_PREFIX}${tenant}`;
}

/** The ledger's input (also carried across continue-as-new). */
export interface TenantLedgerInput {
  tenant: string;
  /** The envelope the first worker's file gave (the ledger's, until a `tenants set` or a later file's). */
  envelope: TenantEnvelope;
  /** The state carried from the run before (absent on the first). */
  state?: TenantLedgerState;
}

/** What `model-retry tenants` shows of a ledger. */
export interface TenantSnapshot {
  tenant: string;
  envelope: TenantEnvelope;
  source: 'file' | 'set';
  /** Settled spend in the period (or window). */
  spent: Amount;
  /** Held by leases not settled yet (an expired one counts in full until settled). */
  held: Amount;
  /** What is left: the envelope less spent and held (absent for a limit the envelope does not set). */
  left: Partial<Amount>;
  leases: Lease[];
  renewsAt?: number;
  overBilled: Amount;
  disagreements: Disagreement[];
  asOf: number;
}

/** A batch of settlements from one worker (a signal: no answer needed, a lost one only keeps the room held). */
export interface SettleBatch {
  worker: string;
  settlements: Settlement[];
}
