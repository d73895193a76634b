import type { Amount, TenantEnvelope, TenantSnapshot } from '../common/tenants.js';

/** One lease as `tenants --json` prints it. */
export interface TenantLeaseRow {
  id: string;
  worker: string;
  amount: Amount;
  grantedAt: string;
  expiresAt: string;
}

/** One tenant ledger as `tenants --json` prints it: its state, or why it could not be read. */
export type TenantRow =
  | {
      tenant: string;
      workflowId: string;
      envelope: TenantEnvelope;
      source: 'file' | 'set';
      spent: Amount;
      held: Amount;
      left: Partial<Amount>;
      renewsAt?: string;
      leaseCount: number;
      leases: TenantLeaseRow[];
      overBilled: Amount;
      disagreements: { worker: string; envelope: TenantEnvelope; at: string }[];
      asOf: string;
    }
  | { tenant: string; workflowId: string; unreadable: string };

const iso = (ms: number): string => new Date(ms).toISOString();

/** A ledger's snapshot as a row. */
export function tenantRow(workflowId: string, s: TenantSnapshot): TenantRow {
  return {
    tenant: s.tenant,
    workflowId,
    envelope: s.envelope,
    source: s.source,
    spent: s.spent,
    held: s.held,
    left: s.left,
    ...(s.renewsAt === undefined ? {} : { renewsAt: iso(s.renewsAt) }),
    leaseCount: s.leases.length,
    leases: s.leases.map((l) => ({
      id: l.id,
      worker: l.worker,
      amount: l.amount,
      grantedAt: iso(l.grantedAt),
      expiresAt: iso(l.expiresAt),
    })),
    overBilled: s.overBilled,
    disagreements: s.disagreements.map((d) => ({ worker: d.worker, envelope: d.envelope, at: iso(d.at) })),
    asOf: iso(s.asOf),
  };
}

const usd = (n: number): string => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`;

/** An envelope in a few words: `1000 tokens, $5.00 per day (UTC), weight 2`. */
export function envelopeText(e: TenantEnvelope): string {
  const limits = [
    ...(e.maxTotalTokens === undefined ? [] : [`${e.maxTotalTokens} tokens`]),
    ...(e.maxCostUsd === undefined ? [] : [usd(e.maxCostUsd)]),
  ];
  const per = e.windowMs !== undefined ? `per rolling ${e.windowMs} ms` : `per ${e.period ?? 'day'} (UTC)`;
  const weight = e.weight === undefined ? '' : `, weight ${e.weight}`;
  return `${limits.length > 0 ? limits.join(', ') : 'no limit'} ${per}${weight}`;
}

/** An amount in the units `e` limits (tokens, USD, or both). */
function amountText(a: Partial<Amount>, e: TenantEnvelope): string {
  const parts = [
    ...(e.maxTotalTokens === undefined || a.tokens === undefined ? [] : [`${a.tokens} tokens`]),
    ...(e.maxCostUsd === undefined || a.costUsd === undefined ? [] : [usd(a.costUsd)]),
  ];
  return parts.length > 0 ? parts.join(', ') : `${a.tokens ?? 0} tokens, ${usd(a.costUsd ?? 0)}`;
}

/** The rows as text: a block per tenant. */
export function tenantText(rows: readonly TenantRow[]): string {
  return rows
    .map((r) => {
      if ('unreadable' in r) return `${r.tenant}  could not be read: ${r.unreadable}\n`;
      const e = r.envelope;
      const lines = [
        `${r.tenant}  ${envelopeText(e)}  (from ${r.source === 'set' ? '`tenants set`' : "a worker's file"})`,
        `  spent ${amountText(r.spent, e)}; held by ${r.leaseCount} lease(s) ${amountText(r.held, e)}; ` +
          `left ${amountText(r.left, e)}`,
        ...(r.renewsAt === undefined ? [] : [`  renews at ${r.renewsAt}`]),
        `  over-billed (billed beyond reservations) ${amountText(r.overBilled, e)}`,
        ...r.disagreements.map(
          (d) =>
            `  worker ${d.worker}'s file says ${envelopeText(d.envelope)} (seen ${d.at}); the ledger's holds`,
        ),
      ];
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
