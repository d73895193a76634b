/**
 * Tenants' plain data that crosses Temporal: the tenants file's shape, the tenant ledger's id, its update, signals
 * and query, and their payloads. One ledger workflow per tenant and namespace owns the tenant's envelope (what it
 * may spend per period); workers lease allowances from it and reserve each attempt against their lease before
 * sending (see `policy/envelope.ts` for the rules, `workflows/tenant/` for the ledger, `activities/tenants/` for
 * the worker's side).
 */

/** The tenant whose envelope holds for every tenant the file does not name. */
export const DEFAULT_TENANT = '*';

/** A period an envelope renews at: midnight UTC (`day`) or the first of the month, midnight UTC (`month`). */
export type TenantPeriod = 'day' | 'month';

/**
 * One tenant's entry of the tenants file: its envelope (what it may spend per period, every call, turn, attempt
 * and worker together) and its fairness weight.
 */
export interface TenantEnvelope {
  /** USD per period (billed cost, else priced by the providers file's `pricing`). */
  maxCostUsd?: number;
  /** Input + output tokens per period. */
  maxTotalTokens?: number;
  /** The calendar period the limits hold for, UTC. Not with `windowMs`. @default 'day' (when neither is given) */
  period?: TenantPeriod;
  /** A rolling window instead of a calendar period: the limits hold for any `windowMs` of time. */
  windowMs?: number;
  /** The tenant's fairness weight: its share of the task queue and of in-worker waits. @default 1 */
  weight?: number;
}

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
/** The memo key the ledger keeps its {@link TenantSnapshot} under (read with `describe`, no worker needed). */
export const TENANT_MEMO_KEY = 'modelRetryTenant';

/** The ledger of `tenant` in its namespace: `model-retry-tenant:<tenant>`. */
export function tenantLedgerId(tenant: string): string {
  return `${TENANT_LEDGER_ID_PREFIX}${tenant}`;
}

/** What an envelope counts: tokens and USD. */
export interface Amount {
  tokens: number;
  costUsd: number;
}

/** The ledger's input (also carried across continue-as-new). */
export interface TenantLedgerInput {
  tenant: string;
  /** The envelope the first worker's file gave (the ledger's, until a `tenants set` or a later file's). */
  envelope: TenantEnvelope;
  /** The state carried from the run before (absent on the first). */
  state?: TenantLedgerState;
}

/** One lease the ledger has granted and not had settled. */
export interface Lease {
  id: string;
  /** The worker that holds it (its identity). */
  worker: string;
  /** What the lease allows; counted as spent until settled. */
  amount: Amount;
  /** When it was granted and until when the worker may reserve against it (workflow time, epoch ms). */
  grantedAt: number;
  expiresAt: number;
}

/** A worker asks for an allowance. */
export interface LeaseRequest {
  /** The worker's identity. */
  worker: string;
  /** What the worker asks for (it takes less, down to `least`). */
  wanted: Amount;
  /** The least it can use: the attempt's reservation that made it ask. */
  least: Amount;
  /** How long the lease lasts. */
  ttlMs: number;
  /** The envelope of the worker's tenants file for this tenant: a disagreement with the ledger's is reported. */
  envelope: TenantEnvelope;
}

/** The ledger's answer to a {@link LeaseRequest}. */
export type LeaseAnswer =
  | { granted: true; lease: Lease; envelope: TenantEnvelope }
  | {
      granted: false;
      /**
       * `spent`: what is spent (settled, and leases counted as spent) leaves less than `least` before the period
       * renews. `held`: what leases of other workers hold leaves less; it frees by `retryAfterMs` at the latest.
       */
      why: 'spent' | 'held';
      /** What is left of the envelope, spent and held counted. */
      left: Amount;
      /** When the envelope renews (the next period's start, or when the oldest spend leaves the window). */
      renewsAt?: number;
      /** `held`: when the earliest lease of another worker expires. */
      retryAfterMs?: number;
      envelope: TenantEnvelope;
    };

/** What a worker settles of one lease: what was billed under it. */
export interface Settlement {
  leaseId: string;
  billed: Amount;
  /** What it reserved in all under the lease (the attempts' bounds): `billed - reserved` over 0 is over-billing. */
  reserved: Amount;
}

/** A batch of settlements from one worker. */
export interface SettleBatch {
  worker: string;
  settlements: Settlement[];
}

/** What one period has spent: settled billing, with its time for a rolling window. */
export interface SpendEntry extends Amount {
  at: number;
}

/** The ledger's durable state. */
export interface TenantLedgerState {
  envelope: TenantEnvelope;
  /** Where the envelope came from: a worker's file, or an operator's `tenants set` (which files do not undo). */
  source: 'file' | 'set';
  /** A calendar period's start (epoch ms), or absent for a rolling window. */
  periodStart?: number;
  /** What was settled in the period (one entry per settle batch for a rolling window, else one running total). */
  spent: SpendEntry[];
  leases: Lease[];
  /** What providers billed beyond the reservations in the period (Σ max(0, billed − reserved) per lease). */
  overBilled: Amount;
  /** Files whose envelope differs from the ledger's: worker -> its envelope, latest first, a few kept. */
  disagreements: { worker: string; envelope: TenantEnvelope; at: number }[];
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
  disagreements: { worker: string; envelope: TenantEnvelope; at: number }[];
  asOf: number;
}
