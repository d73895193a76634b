import type { MetricMeter } from '@temporalio/common';
import type { Amount } from '../../policy/index.js';

/** Why an attempt was not sent under its tenant's envelope (the `why` tag of `model_retry_tenant_refused`). */
export type TenantRefusal = 'spent' | 'held' | 'unreachable' | 'misconfigured';

/** What a worker counts of one tenant's attempts. */
export interface TenantMetrics {
  /** An attempt reserved `amount` against a lease. */
  reserved(amount: Amount): void;
  /** An attempt ended having billed `amount` (what settles into its lease). */
  billed(amount: Amount): void;
  /** An attempt was not sent. */
  refused(why: TenantRefusal): void;
}

/**
 * The tenant metrics of the attempt's worker, tagged `tenant`, through the activity's metric meter (exported by the
 * worker's runtime: Prometheus with `model-retry worker --metrics`): `model_retry_tenant_reserved_tokens` and
 * `model_retry_tenant_billed_tokens` (counters), `model_retry_tenant_reserved_usd` and
 * `model_retry_tenant_billed_usd` (float histograms, since Temporal's counters count whole numbers: their `_sum`
 * is the USD total), `model_retry_tenant_refused` (a counter, tagged `why`).
 */
export function tenantMetrics(meter: MetricMeter, tenant: string): TenantMetrics {
  const tags = { tenant };
  // A metric never fails an attempt: a value the meter would refuse is counted as nothing.
  const some = (n: number): number => (Number.isFinite(n) ? Math.max(0, n) : 0);
  const count = (kind: 'reserved' | 'billed', amount: Amount, what: string): void => {
    meter
      .createCounter(`model_retry_tenant_${kind}_tokens`, 'tokens', `Tokens ${what}`)
      .add(Math.round(some(amount.tokens)), tags);
    meter
      .createHistogram(`model_retry_tenant_${kind}_usd`, 'float', 'USD', `USD ${what} (the sum is the total)`)
      .record(some(amount.costUsd), tags);
  };
  return {
    reserved: (amount) => count('reserved', amount, "reserved by attempts against their tenant's envelope"),
    billed: (amount) => count('billed', amount, "billed by attempts under their tenant's envelope"),
    refused: (why) =>
      meter
        .createCounter(
          'model_retry_tenant_refused',
          'attempts',
          "Attempts not sent under their tenant's envelope, by why",
        )
        .add(1, { ...tags, why }),
  };
}
