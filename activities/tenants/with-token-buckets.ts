/**
 * `limits.tokensPerMinute` around the attempt activity: a fleet-wide bucket per provider or backend, kept by a
 * ledger workflow like a tenant's envelope (`model-retry-tokens:<key>`, a rolling minute), fed by what attempts
 * billed and by the provider's remaining-tokens headers. An attempt reserves its bound (its input as estimated,
 * plus `maxOutputTokens` or the model's output limit) in every bucket that holds for its backend before it sends;
 * one that does not fit sends nothing and fails `CoolingDown` with when tokens free up, so the call waits within
 * its deadline (or moves to another backend) instead of meeting a 429.
 */
import { Context } from '@temporalio/activity';
import { remainingTokens } from '../../policy/index.js';
import type { Amount, LeaseAnswer, TenantEnvelope } from '../../policy/index.js';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import { limitKeysOf } from '../../common/limits.js';
import type { LimitsByKey } from '../../common/limits.js';
import { healthTaskQueue } from '../health/settings.js';
import { startHeartbeat } from '../heartbeat.js';
import { attemptTokens, billedOf, billedOnFailure, notSent } from './attempt-billing.js';
import type { Reservation, TenantLeases } from './leases.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/** The id prefix of every tokens-per-minute bucket's ledger. */
export const TOKEN_BUCKET_ID_PREFIX = 'model-retry-tokens:';
const WINDOW_MS = 60_000;
/** How long an attempt that could not reach a bucket's ledger says to wait. */
const UNREACHABLE_RETRY_MS = 1_000;

/** What the wrapper needs. */
export interface WithTokenBucketsDeps {
  limits: LimitsByKey;
  leases: TenantLeases;
  outputLimits: () => Record<string, number>;
  heartbeatIntervalMs?: number | undefined;
}

/** Wraps the attempt activity with the token buckets of its backend (none: the activity itself). */
export function withTokenBuckets(modelRequest: ModelRequest, deps: WithTokenBucketsDeps): ModelRequest {
  const bucketed = Object.values(deps.limits).some((l) => l.tokensPerMinute !== undefined);
  if (!bucketed) return modelRequest;
  return async function modelRequestInBuckets(input: ModelRequestInput): Promise<ModelRequestResult> {
    const keys = limitKeysOf(input.model, deps.limits).filter(
      (k) => deps.limits[k]?.tokensPerMinute !== undefined,
    );
    if (keys.length === 0) return modelRequest(input);
    const ctx = Context.current();
    const startedAt = new Date().toISOString();
    // Without an output bound a bucket reserves the input alone (an envelope would refuse: see with-tenants.ts).
    const tokens = attemptTokens(input, deps.outputLimits());
    const bound: Amount = { tokens: tokens.input + (tokens.output ?? 0), costUsd: 0 };
    const taken: Reservation[] = [];
    const giveBack = (): void => {
      for (const r of taken.splice(0)) r.done({ tokens: 0, costUsd: 0 });
    };
    const stopHeartbeat = startHeartbeat(ctx, { startedAt }, deps.heartbeatIntervalMs);
    try {
      for (const key of keys) {
        const tpm = deps.limits[key]?.tokensPerMinute ?? 0;
        if (bound.tokens > tpm) {
          giveBack();
          throw notSent(
            'Misconfigured',
            `the attempt reserves up to ${bound.tokens} tokens, more than \`tokensPerMinute\` ${tpm} of ${key} ` +
              'allows in a minute: raise the limit or lower `maxOutputTokens`; nothing was sent',
            startedAt,
          );
        }
        const envelope: TenantEnvelope = { maxTotalTokens: tpm, windowMs: WINDOW_MS };
        const got = await deps.leases.reserve(
          { id: `${TOKEN_BUCKET_ID_PREFIX}${key}`, name: key },
          envelope,
          bound,
          {
            client: ctx.client,
            taskQueue: healthTaskQueue(ctx.info.taskQueue),
            signal: ctx.cancellationSignal,
          },
        );
        if ('done' in got) {
          taken.push(got);
          continue;
        }
        giveBack();
        if ('unreachable' in got) {
          const why = `the tokens-per-minute ledger of ${key} could not be reached (${got.unreachable}); nothing was sent`;
          throw notSent('CoolingDown', why, startedAt, { retryAfterMs: UNREACHABLE_RETRY_MS });
        }
        throw waitForTokens(key, tpm, bound, got.refused, startedAt);
      }
    } finally {
      stopHeartbeat();
    }
    try {
      const result = await modelRequest(input);
      const billed = billedOf(result.usage, undefined, undefined) ?? bound;
      for (const r of taken) r.done(billed);
      heard(deps.leases, keys, result.response?.headers);
      return result;
    } catch (error) {
      const billed = billedOnFailure(error, bound, undefined, true);
      for (const r of taken) r.done(billed);
      throw error;
    }
  };
}

/** The provider's remaining-tokens word, for each bucket of the backend. */
function heard(leases: TenantLeases, keys: string[], headers: Record<string, string> | undefined): void {
  const now = Date.now();
  const left = remainingTokens(headers, now);
  if (left === undefined) return;
  for (const key of keys) {
    leases.heard(`${TOKEN_BUCKET_ID_PREFIX}${key}`, {
      remaining: left.remaining,
      resetAt: now + left.resetInMs,
      at: now,
    });
  }
}

/** An attempt that must wait for tokens: `CoolingDown` until they free up. */
function waitForTokens(
  key: string,
  tpm: number,
  bound: Amount,
  refused: Extract<LeaseAnswer, { granted: false }>,
  startedAt: string,
): Error {
  const now = Date.now();
  const waitMs = Math.max(
    1,
    refused.why === 'held'
      ? (refused.retryAfterMs ?? UNREACHABLE_RETRY_MS)
      : (refused.renewsAt ?? now + WINDOW_MS) - now,
  );
  const message =
    `tokensPerMinute ${tpm} of ${key}: ${refused.left.tokens ?? 0} tokens left and this attempt reserves up to ` +
    `${bound.tokens}; tokens free up in ${waitMs} ms; nothing was sent`;
  return notSent('CoolingDown', message, startedAt, { retryAfterMs: waitMs });
}
