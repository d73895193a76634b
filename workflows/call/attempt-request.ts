import { workflowInfo } from '@temporalio/workflow';
import { attemptTimeoutMs, spendUntilMs } from '../../policy/index.js';
import type {
  AttemptCause,
  AttemptContinuation,
  HeldAttempt,
  ModelRequestInput,
} from '../../common/attempt.js';
import type { AttemptRecord } from '../../common/call.js';
import type { CallSetup } from './call-setup.js';

/** What an attempt's input takes besides the call and its record. */
export interface AttemptExtras {
  /** The conversation as this attempt sends it (a repair's corrections appended). */
  messages: ModelRequestInput['request']['prompt'];
  /** The decision that led to this attempt (absent on the first). */
  after: AttemptCause | undefined;
  /** The backend was cooling when the workflow asked: the attempt sends nothing (see `routeOf`). */
  held: HeldAttempt | undefined;
  /** The text earlier attempts delivered before they were cut, which this attempt continues. */
  continuation?: AttemptContinuation | undefined;
}

/**
 * The input of the attempt of `record` (plain JSON, written into history: the history reader rebuilds the record
 * and the decision before it from it). Its request timeout counts from the record's start.
 */
export function attemptRequest(
  call: CallSetup,
  record: AttemptRecord,
  { messages, after, held, continuation }: AttemptExtras,
): ModelRequestInput {
  const { input, plan, request, stream, output } = call;
  const spendUntil = spendUntilMs(plan);
  return {
    workflowId: workflowInfo().workflowId,
    callId: record.callId,
    attempt: record.attempt,
    modelCallId: record.modelCallId,
    backend: record.backend,
    model: record.model,
    request: messages === request.prompt ? request : { ...request, prompt: messages },
    timeoutMs: attemptTimeoutMs(plan, Date.parse(record.startedAt)),
    ...(spendUntil === undefined ? {} : { spendUntil }),
    minAttemptMs: plan.minAttemptMs,
    ...(held ? { held } : {}),
    ...(after ? { after } : {}),
    ...(stream.config ? { stream: stream.config } : {}),
    ...(continuation ? { continuation } : {}),
    ...(output ? { output: { schema: output.schema } } : {}),
    ...(input.budget?.maxCostUsd !== undefined ? { costBudget: true as const } : {}),
    // Only with a tenant: the inputs of calls without one stay as they were (and so their recorded histories).
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
  };
}
