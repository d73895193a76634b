import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { always, ok, rateLimited, slow } from '../../loopback/index.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { BENCH_KEY_ENV } from '../../test/harness/lab.js';

/** How big one run is: small counts, so that the whole benchmark fits in a few minutes on two cores. */
export interface Plan {
  /** Worker processes per server, on one task queue. */
  workers: number;
  /** Activity slots per worker process: few, so that a burst queues on the server. */
  activitySlots: number;
  /** The loopback's answer delay for the fairness calls, ms. */
  answerMs: number;
  /** Calls the `burst` tenant starts at once. */
  burstCalls: number;
  /** Calls the `trickle` tenant starts, one every `trickleEveryMs`, alone and again under the burst. */
  trickleCalls: number;
  trickleEveryMs: number;
  /** The capped tenants' envelope, tokens a day, and the calls each starts at once. */
  envelopeTokens: number;
  envelopeCalls: number;
  /** The provider's tokens a minute, and the calls started at once against it with the bucket on and off. */
  tokensPerMinute: number;
  tpmCalls: number;
}

export const FULL: Plan = {
  workers: 2,
  activitySlots: 4,
  answerMs: 200,
  burstCalls: 200,
  trickleCalls: 12,
  trickleEveryMs: 400,
  envelopeTokens: 1_000,
  envelopeCalls: 20,
  tokensPerMinute: 1_000,
  tpmCalls: 20,
};

export const QUICK: Plan = {
  ...FULL,
  burstCalls: 30,
  trickleCalls: 4,
  trickleEveryMs: 300,
  envelopeCalls: 14,
  tpmCalls: 14,
};

/** What each attempt asks for (`maxOutputTokens`) and what the loopback bills for an answer. */
export const MAX_OUTPUT_TOKENS = 89;
export const BILLED = { inputTokens: 1, outputTokens: 89 } as const;
/** What the over-billing provider bills: 20 % past `maxOutputTokens` (a provider that ignores it). */
export const OVER_BILLED = { inputTokens: 1, outputTokens: 107 } as const;

/** The loopback models each part uses (ids no other benchmark of the run uses). */
export interface Models {
  burst: { id: string; name: string };
  trickle: { id: string; name: string };
  envelope: { id: string; name: string };
  overBilling: { id: string; name: string };
  tpmOn: { id: string; name: string };
  tpmOff: { id: string; name: string };
}

export function models(ctx: BenchContext): Models {
  return {
    burst: ctx.model('tenants-burst'),
    trickle: ctx.model('tenants-trickle'),
    envelope: ctx.model('tenants-envelope'),
    overBilling: ctx.model('tenants-over'),
    tpmOn: ctx.model('tenants-tpm-on'),
    tpmOff: ctx.model('tenants-tpm-off'),
  };
}

/** How many answers a provider of `perMinute` tokens a minute gives before it answers 429. */
export function answersPerMinute(plan: Plan): number {
  return Math.floor(plan.tokensPerMinute / (BILLED.inputTokens + BILLED.outputTokens));
}

/**
 * The loopback's scripts. The tokens-per-minute provider is emulated: the loopback has no token window, so each
 * side's model answers as many requests as fit in the minute (the whole run of a side is well inside one minute),
 * then 429 to every request after.
 */
export function scriptLoopback(ctx: BenchContext, m: Models, plan: Plan): void {
  const answer = always(slow(plan.answerMs, ok('fine', { usage: BILLED })));
  ctx.lp.script(m.burst.id, [answer]);
  ctx.lp.script(m.trickle.id, [answer]);
  ctx.lp.script(m.envelope.id, [always(ok('fine', { usage: BILLED }))]);
  ctx.lp.script(m.overBilling.id, [always(ok('fine', { usage: OVER_BILLED }))]);
  const fits = answersPerMinute(plan);
  for (const model of [m.tpmOn, m.tpmOff]) {
    ctx.lp.script(model.id, [
      ...Array.from({ length: fits }, () => ok('fine', { usage: BILLED })),
      always(rateLimited(60)),
    ]);
  }
}

/** The tenants of the run: two weighed alike, two capped (an envelope of `envelopeTokens` a day). */
export function tenantsConfig(plan: Plan, tag: string) {
  const roomy = { maxTotalTokens: 100_000_000, period: 'day' as const, weight: 1 };
  const capped = { maxTotalTokens: plan.envelopeTokens, period: 'day' as const };
  return {
    burst: roomy,
    trickle: roomy,
    [`capped-${tag}`]: capped,
    [`over-${tag}`]: capped,
  };
}

/** Writes the providers file (the tokens-per-minute limit on one model) and the tenants file; their paths. */
export function writeFiles(
  dir: string,
  ctx: BenchContext,
  m: Models,
  plan: Plan,
  tag: string,
): { providers: string; tenants: string } {
  const providers = join(dir, 'providers.json');
  const tenants = join(dir, 'tenants.json');
  writeFileSync(
    providers,
    JSON.stringify({
      local: {
        type: 'openai-compatible',
        baseURL: ctx.lp.openaiBaseURL,
        apiKeyEnv: BENCH_KEY_ENV,
        models: { [m.tpmOn.id]: { limits: { tokensPerMinute: plan.tokensPerMinute } } },
      },
    }),
  );
  writeFileSync(tenants, JSON.stringify(tenantsConfig(plan, tag)));
  return { providers, tenants };
}
