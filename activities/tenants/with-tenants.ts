/**
 * Tenant envelopes around the attempt activity: an attempt of a call that names a tenant under an envelope
 * reserves its bound (its input as estimated, plus `maxOutputTokens` or the model's output limit, priced) against
 * its worker's lease before anything is sent. What it billed settles into the lease after, however it ended. An
 * attempt that does not fit is not sent: it fails `QuotaExhausted` marked `overEnvelope` (the call stops `budget`,
 * naming the envelope and when it renews), or `CoolingDown` while other workers' leases hold the room or the
 * ledger cannot be reached (fail closed: nothing is sent on a stale read).
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { ApplicationFailure } from '@temporalio/common';
import { limitsSpend, pricedCost } from '../../policy/index.js';
import type { Amount, LeaseAnswer, Pricing, TenantEnvelope } from '../../policy/index.js';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import { envelopeFor } from '../../common/call-input/tenant-bound.js';
import type { TenantsConfig } from '../../common/tenants.js';
import { healthTaskQueue } from '../health/settings.js';
import { hasBegunSending } from '../sending.js';
import { attemptTokens, billedOf, billedOnFailure, notSent } from './attempt-billing.js';
import { startHeartbeat } from '../heartbeat.js';
import type { TenantLeases } from './leases.js';
import { tenantMetrics } from './metrics.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/** What the wrapper needs. */
export interface WithTenantsDeps {
  /** The worker's tenants file; absent: no envelope holds (a call's tenant is then its fairness key only). */
  tenants: TenantsConfig | undefined;
  leases: TenantLeases;
  /** Prices by `provider:model` (a cost envelope prices each reservation). */
  pricing: () => Record<string, Pricing>;
  /** Output limits by `provider:model` (the bound of an attempt without its own `maxOutputTokens`). */
  outputLimits: () => Record<string, number>;
  heartbeatIntervalMs?: number | undefined;
}

/** How long an attempt that could not reach its tenant's ledger says to wait before the next try. */
const UNREACHABLE_RETRY_MS = 1_000;

/** Wraps the attempt activity with its tenant's envelope. */
export function withTenants(modelRequest: ModelRequest, deps: WithTenantsDeps): ModelRequest {
  return async function modelRequestInEnvelope(input: ModelRequestInput): Promise<ModelRequestResult> {
    const tenant = input.tenant;
    const envelope = tenant === undefined ? undefined : envelopeFor(deps.tenants, tenant);
    if (tenant === undefined || envelope === undefined || !limitsSpend(envelope)) return modelRequest(input);
    const ctx = Context.current();
    const metrics = tenantMetrics(ctx.metricMeter, tenant);
    const startedAt = new Date().toISOString();
    const bound = boundOf(input, envelope, deps);
    if (typeof bound === 'string') {
      metrics.refused('misconfigured');
      throw notSent('Misconfigured', bound, startedAt);
    }
    const stopHeartbeat = startHeartbeat(ctx, { startedAt }, deps.heartbeatIntervalMs);
    let reserved;
    try {
      reserved = await deps.leases.reserve(tenant, envelope, bound, {
        client: ctx.client,
        taskQueue: healthTaskQueue(ctx.info.taskQueue),
        signal: ctx.cancellationSignal,
      });
    } finally {
      stopHeartbeat();
    }
    if (ctx.cancellationSignal.aborted) {
      if ('done' in reserved) reserved.done({ tokens: 0, costUsd: 0 });
      throw new CancelledFailure('the attempt was cancelled while it reserved against its tenant envelope');
    }
    if ('unreachable' in reserved) {
      metrics.refused('unreachable');
      const why = `the ledger of tenant ${tenant} could not be reached (${reserved.unreachable}); nothing was sent`;
      throw notSent('CoolingDown', why, startedAt, { retryAfterMs: UNREACHABLE_RETRY_MS });
    }
    if ('refused' in reserved) {
      metrics.refused(reserved.refused.why);
      throw refusal(tenant, bound, reserved.refused, startedAt);
    }
    metrics.reserved(reserved.amount);
    const pricing = deps.pricing()[input.model];
    const settle = (billed: Amount): void => {
      reserved.done(billed);
      metrics.billed(billed);
    };
    try {
      const result = await modelRequest(input);
      settle(billedOf(result.usage, result.cost, pricing) ?? bound);
      return result;
    } catch (error) {
      settle(billedOnFailure(error, bound, pricing, hasBegunSending(ctx)));
      throw error;
    }
  };
}

/** The attempt's reservation, or why none can be made (a field to set). */
function boundOf(input: ModelRequestInput, envelope: TenantEnvelope, deps: WithTenantsDeps): Amount | string {
  const { input: inputTokens, output } = attemptTokens(input, deps.outputLimits());
  if (output === undefined) {
    return (
      `tenant ${input.tenant}'s envelope counts ${envelope.maxTotalTokens !== undefined ? 'tokens' : 'USD'}: an attempt on ${input.model} needs a bound to reserve, ` +
      `\`settings.maxOutputTokens\` on the call or \`maxOutputTokens\` of the model in the providers file; nothing was sent`
    );
  }
  const pricing = deps.pricing()[input.model];
  if (envelope.maxCostUsd !== undefined && pricing === undefined) {
    return (
      `tenant ${input.tenant}'s envelope counts USD: ${input.model} needs a \`pricing\` in the providers file ` +
      'to reserve against it; nothing was sent'
    );
  }
  const costUsd = pricing === undefined ? 0 : pricedCost({ inputTokens, outputTokens: output }, pricing);
  return { tokens: inputTokens + output, costUsd };
}

const usd = (n: number): string => `$${n.toFixed(n < 1 ? 4 : 2)}`;

/** The failure of an attempt the ledger refused. */
function refusal(
  tenant: string,
  bound: Amount,
  refused: Extract<LeaseAnswer, { granted: false }>,
  startedAt: string,
): ApplicationFailure {
  const e = refused.envelope;
  const per = e.windowMs !== undefined ? `per ${e.windowMs} ms window` : `per ${e.period ?? 'day'} (UTC)`;
  const tokens = refused.limit === 'maxTotalTokens';
  const limit = tokens ? `maxTotalTokens ${e.maxTotalTokens}` : `maxCostUsd ${e.maxCostUsd}`;
  const left = tokens ? `${refused.left.tokens ?? 0} tokens` : usd(refused.left.costUsd ?? 0);
  const needs = tokens ? `${bound.tokens} tokens` : usd(bound.costUsd);
  const renews =
    refused.renewsAt === undefined ? '' : `; it renews at ${new Date(refused.renewsAt).toISOString()}`;
  const head = `tenant ${tenant}'s envelope (${limit} ${per}) has ${left} left and this attempt reserves up to ${needs}`;
  if (refused.why === 'held') {
    const wait = refused.retryAfterMs ?? UNREACHABLE_RETRY_MS;
    return notSent(
      'CoolingDown',
      `${head}: other workers' leases hold the rest for up to ${wait} ms; nothing was sent`,
      startedAt,
      {
        retryAfterMs: wait,
      },
    );
  }
  return notSent('QuotaExhausted', `${head}${renews}; nothing was sent`, startedAt, {
    code: 'tenant-envelope',
    overEnvelope: true,
  });
}
