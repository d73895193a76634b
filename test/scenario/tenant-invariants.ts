/**
 * Invariants of a case run for a tenant (see `tenants.ts`), across its calls: what the provider was sent never
 * passes the tenant's envelope, and an attempt refused for the envelope sent nothing and ended its call.
 *
 * What the ledger counts of an attempt that was sent is what it billed, or at the least its reservation when it
 * billed more (what providers bill beyond the reservations is reported apart, not held to the envelope). The oracle
 * counts less than that, so a violation is a real one: an attempt's reported usage, capped at the least it could
 * have reserved (its input estimate and `maxOutputTokens`); with no usage on record, that least when the attempt
 * may have been billed (the contract's table, as the worker settles it), else nothing.
 */
import type { AttemptRecord } from '../../common/call.js';
import type { Usage } from '../../common/attempt.js';
import type { GroupEvidence } from './run-scenario.js';
import type { Violation } from './stop-oracle.js';
import { leastReservation, refusedForEnvelope } from './tenants.js';
import { mayHaveBilled } from '../../policy/index.js';

function tokensOf(usage: Usage | undefined): number | undefined {
  if (usage === undefined) return undefined;
  return usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}

/** A sent attempt that reported no usage and the worker settles as its whole reservation. */
function mayHaveBilledUnreported(r: AttemptRecord): boolean {
  // A cancelled attempt that had sent counts its reservation (it may have been billed).
  if (r.outcome === 'cancelled' || r.outcome === 'succeeded') return true;
  const failure = r.failure;
  if (failure === undefined) return false;
  const facts = { class: failure.class, ...(failure.status !== undefined ? { status: failure.status } : {}) };
  return mayHaveBilled({ model: r.model, outcome: 'failed', failure: facts });
}

/** Every tenant invariant of a case; none when the case has no tenant. */
export function checkTenant(g: GroupEvidence): Violation[] {
  const tenant = g.scenario.tenant;
  if (tenant === undefined) return [];
  const out: Violation[] = [];
  const least = leastReservation(g.scenario);
  let counted = 0;
  const counts: string[] = [];
  for (const call of g.calls) {
    const sent = new Set(call.requests.map((r) => r.headers['x-request-id']));
    for (const [i, r] of call.records.entries()) {
      const id = `${call.workflowId}/${r.modelCallId}`;
      if (refusedForEnvelope(r)) {
        if (sent.has(id))
          out.push({ invariant: 'tenant', message: `${id} was refused for its envelope, yet it was sent` });
        if (i !== call.records.length - 1)
          out.push({
            invariant: 'tenant',
            message: `${id} was refused for its envelope, yet its call went on`,
          });
        continue;
      }
      if (!sent.has(id)) continue;
      const billed = tokensOf(r.usage);
      const count = billed !== undefined ? Math.min(billed, least) : mayHaveBilledUnreported(r) ? least : 0;
      counted += count;
      counts.push(`${r.modelCallId} ${count}`);
    }
  }
  if (counted > tenant.maxTotalTokens) {
    out.push({
      invariant: 'tenant',
      message: `tenant ${tenant.name ?? '?'} was sent ${counted} tokens' worth (${counts.join(', ')}), more than its envelope of ${tenant.maxTotalTokens}`,
    });
  }
  return out;
}
