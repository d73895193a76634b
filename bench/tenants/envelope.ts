import type { Client } from '@temporalio/client';
import { callToItsEnd } from './call.js';
import { TENANT_QUERY, tenantLedgerId } from '../../common/tenants.js';
import type { TenantSnapshot } from '../../common/tenants.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { MAX_OUTPUT_TOKENS } from './plan.js';

/** One capped tenant's run: what the provider received and billed against the envelope. */
export interface EnvelopeSide {
  tenant: string;
  envelopeTokens: number;
  calls: number;
  succeeded: number;
  stoppedBudget: number;
  /** Requests the provider received. */
  requests: number;
  billedPerRequest: number;
  /** Σ billed over every request the provider received. */
  billedTokens: number;
  /** Requests sent when what the earlier ones billed plus what this one bills passed the envelope. */
  requestsPastEnvelope: number;
  /** Σ billed beyond the envelope (0 when within it). */
  billedPastEnvelope: number;
}

/** All of a capped tenant's calls at once; the provider's requests in the order they arrived, billed alike. */
export async function runCapped(
  client: Client,
  taskQueue: string,
  lp: LoopbackProvider,
  side: { tenant: string; model: { id: string; name: string }; billedPerRequest: number },
  envelopeTokens: number,
  calls: number,
): Promise<EnvelopeSide> {
  const results = await Promise.all(
    Array.from({ length: calls }, () =>
      callToItsEnd(client, taskQueue, {
        model: side.model.name,
        prompt: 'hi',
        tenant: side.tenant,
        settings: { maxOutputTokens: MAX_OUTPUT_TOKENS },
      }),
    ),
  );
  const requests = lp.requests(side.model.id).length;
  let billed = 0;
  let past = 0;
  for (let i = 0; i < requests; i += 1) {
    billed += side.billedPerRequest;
    if (billed > envelopeTokens) past += 1;
  }
  return {
    tenant: side.tenant,
    envelopeTokens,
    calls,
    succeeded: results.filter((r) => r === 'succeeded').length,
    stoppedBudget: results.filter((r) => r === 'budget').length,
    requests,
    billedPerRequest: side.billedPerRequest,
    billedTokens: billed,
    requestsPastEnvelope: past,
    billedPastEnvelope: Math.max(0, billed - envelopeTokens),
  };
}

/** What the tenant's ledger says once the workers settled their leases: spend, held and over-billed. */
export async function ledgerSays(
  client: Client,
  tenant: string,
): Promise<Pick<TenantSnapshot, 'spent' | 'held' | 'overBilled'> | undefined> {
  try {
    const seen = await client.workflow.getHandle(tenantLedgerId(tenant)).query<TenantSnapshot>(TENANT_QUERY);
    return { spent: seen.spent, held: seen.held, overBilled: seen.overBilled };
  } catch {
    return undefined;
  }
}
