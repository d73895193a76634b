/** What an attempt billed, for the ledgers it reserved in, and the failure of an attempt that sent nothing. */
import { ApplicationFailure } from '@temporalio/common';
import { mayHaveBilled, pricedCost } from '../../policy/index.js';
import type { Amount, FailureClass, Pricing } from '../../policy/index.js';
import type { AttemptFailureDetails, ModelRequestInput, Usage } from '../../common/attempt.js';
import { estimateInputTokens, textTokens } from '../../common/token-estimate.js';
import { attemptFailure } from '../attempt/attempt-failure.js';
import { boundedMessage } from '../scrub.js';

/**
 * What an attempt may cost in tokens, before it is sent: its input as estimated (with the text it continues) and its
 * output bound (`maxOutputTokens`, else the model's output limit; 0 for an embedding; `undefined` when neither is
 * known). Tenant envelopes and token buckets reserve the same bound.
 */
export function attemptTokens(
  input: ModelRequestInput,
  outputLimits: Readonly<Record<string, number>>,
): { input: number; output: number | undefined } {
  const continued = input.continuation === undefined ? 0 : textTokens(input.continuation.text);
  const output =
    input.request.embed !== undefined ? 0 : (input.request.maxOutputTokens ?? outputLimits[input.model]);
  return { input: estimateInputTokens(input.request) + continued, output };
}

/** What a reported usage bills (the provider's cost, else its price); `undefined` when none was reported. */
export function billedOf(
  usage: Usage | undefined,
  cost: number | undefined,
  pricing: Pricing | undefined,
): Amount | undefined {
  if (usage === undefined) return undefined;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  const tokens = usage.totalTokens ?? inputTokens + outputTokens;
  const costUsd = cost ?? (pricing === undefined ? 0 : pricedCost(usage, pricing));
  return { tokens, costUsd };
}

/** What a failed attempt billed: its reported usage, else its reservation when it may have been billed, else 0. */
export function billedOnFailure(
  error: unknown,
  bound: Amount,
  pricing: Pricing | undefined,
  sent: boolean,
): Amount {
  if (error instanceof ApplicationFailure) {
    const details = (error.details?.[0] ?? {}) as Partial<AttemptFailureDetails>;
    const reported = billedOf(details.usage, undefined, pricing);
    if (reported !== undefined) return reported;
    const failure = {
      class: error.type as FailureClass,
      ...(details.status ? { status: details.status } : {}),
    };
    return mayHaveBilled({ model: '', outcome: 'failed', failure }) ? bound : { tokens: 0, costUsd: 0 };
  }
  // A cancelled attempt (or one that failed some other way) after its request went out may have been billed.
  return sent ? bound : { tokens: 0, costUsd: 0 };
}

/** An attempt failure that sent nothing. */
export function notSent(
  cls: FailureClass,
  message: string,
  startedAt: string,
  extra: Partial<AttemptFailureDetails> = {},
): ApplicationFailure {
  return attemptFailure({
    class: cls,
    message: boundedMessage(message, []),
    startedAt,
    endedAt: new Date().toISOString(),
    ...extra,
  });
}
