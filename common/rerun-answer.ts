/**
 * One call's answer as a rerun compares it (`RerunAnswer`): from its attempt records and its answer, the same way
 * for the recorded original (read from its history) and for a candidate (a child call's result or failure).
 */
import { pricedCost } from '../policy/index.js';
import type { FailureClass, Pricing, StopReason } from '../policy/index.js';
import type { ToolCall, Usage } from './attempt.js';
import type { BilledAttempt } from './rerun-input.js';
import type { RerunAnswer } from './rerun.js';

/** What an answer is made of. */
export interface AnswerParts {
  /** The workflow holding the call. */
  workflowId: string;
  /** The call's attempts, oldest first (each with its times, usage and failure). */
  attempts: readonly AttemptLike[];
  /** The answer of the call that succeeded. */
  output?: { text: string; toolCalls: ToolCall[]; finishReason?: string };
  /** A call that failed: why it stopped, when known. */
  stopReason?: StopReason;
  /** A call that failed without an attempt's failure to name it (refused at start): what it said. */
  message?: string;
  /** The model to name when there was no attempt (a call refused at start). */
  model?: string;
  /** Prices by `provider:model`, from the worker (absent: only reported costs count). */
  pricing?: Readonly<Record<string, Pricing>>;
}

/** What of an attempt record an answer reads. */
export interface AttemptLike extends BilledAttempt {
  startedAt?: string;
  endedAt?: string;
  finishReason?: string;
  failure?: { class: FailureClass };
}

export function answerOf(parts: AnswerParts): RerunAnswer {
  const { attempts, output } = parts;
  const last = attempts.at(-1);
  const usage = summedUsage(attempts);
  const costUsd = costOf(attempts, parts.pricing ?? {});
  const latencyMs = latencyOf(attempts);
  const finishReason = output?.finishReason ?? last?.finishReason;
  const answer: RerunAnswer = {
    model: last?.model ?? parts.model ?? '',
    workflowId: parts.workflowId,
    outcome: output ? 'succeeded' : 'failed',
    text: output?.text ?? '',
    toolCalls: output?.toolCalls ?? [],
    ...(finishReason !== undefined ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  };
  if (output) return answer;
  const failureClass = last?.failure?.class;
  return {
    ...answer,
    ...(parts.stopReason ? { stopReason: parts.stopReason } : {}),
    ...(failureClass ? { failureClass } : {}),
    ...(parts.message !== undefined ? { message: parts.message } : {}),
  };
}

const USAGE_KEYS = [
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'cachedInputTokens',
  'cacheWriteInputTokens',
  'reasoningTokens',
] as const satisfies readonly (keyof Usage)[];

/** Usage summed over the attempts that reported it, field by field (a field no attempt reported stays absent). */
export function summedUsage(attempts: readonly { usage?: Usage }[]): Usage | undefined {
  const out: Usage = {};
  for (const a of attempts) {
    for (const key of USAGE_KEYS) {
      const v = a.usage?.[key];
      if (v !== undefined) out[key] = (out[key] ?? 0) + v;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * What the attempts cost: the provider's reported cost, else the model's price on the reported usage. Absent
 * when an attempt that reported usage has neither (its model has no price), or when nothing was reported.
 */
export function costOf(
  attempts: readonly BilledAttempt[],
  pricing: Readonly<Record<string, Pricing>>,
): number | undefined {
  let total = 0;
  let known = false;
  for (const a of attempts) {
    if (a.cost !== undefined) {
      total += a.cost;
      known = true;
      continue;
    }
    if (a.usage === undefined) continue;
    const price = pricing[a.model];
    if (!price) return undefined;
    total += pricedCost(a.usage, price);
    known = true;
  }
  return known ? total : undefined;
}

/** From the first attempt's start to the last one's end, in ms (absent while either is unknown). */
export function latencyOf(attempts: readonly { startedAt?: string; endedAt?: string }[]): number | undefined {
  const start = attempts[0]?.startedAt;
  const end = attempts.at(-1)?.endedAt;
  if (start === undefined || end === undefined) return undefined;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
