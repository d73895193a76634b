/** How a call ends: its successful result, or the `ModelCallFailed` failure it throws. */
import { ApplicationFailure } from '@temporalio/workflow';
import type { Decision, Spent } from '../../policy/index.js';
import type { ModelRequestResult } from '../../common/attempt.js';
import { attemptLine } from './call-summary.js';
import { billedTotals } from '../../common/ledger/billed.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type {
  AttemptRecord,
  LastDecision,
  ModelCallFailedDetails,
  ModelCallResult,
} from '../../common/call.js';

/** The result of a call whose attempt `record` answered with `result`. */
export function resultOf(
  callId: string,
  record: AttemptRecord,
  result: ModelRequestResult,
  records: AttemptRecord[],
): ModelCallResult {
  return {
    callId,
    stopReason: 'succeeded',
    output: {
      text: result.text,
      toolCalls: result.toolCalls,
      finishReason: result.finishReason,
      ...(result.rawFinishReason !== undefined ? { rawFinishReason: result.rawFinishReason } : {}),
      ...(result.object !== undefined ? { object: result.object } : {}),
      ...(result.content !== undefined ? { content: result.content } : {}),
      ...(result.warnings !== undefined && result.warnings.length > 0 ? { warnings: result.warnings } : {}),
      ...(result.response !== undefined ? { response: result.response } : {}),
      ...(result.providerMetadata !== undefined ? { providerMetadata: result.providerMetadata } : {}),
      ...(result.embeddings !== undefined ? { embeddings: result.embeddings } : {}),
    },
    model: record.model,
    backend: record.backend,
    ...(result.usage ? { usage: result.usage } : {}),
    ...(result.responseId !== undefined ? { responseId: result.responseId } : {}),
    attempts: records.map((r) => ({ ...r })),
    billed: billedTotals(records),
    lastDecision: { reason: 'succeeded', why: `attempt ${record.attempt} on ${record.model} answered` },
  };
}

export function actionOf(decision: Decision): Pick<LastDecision, 'action'> {
  return decision.action !== undefined ? { action: decision.action } : {};
}

export function callFailed(
  callId: string,
  records: AttemptRecord[],
  last: LastDecision,
  partialText?: string,
  spent?: Spent,
): ApplicationFailure {
  const count = records.length;
  const head = `model call ${callId} stopped (${last.reason}) after ${count} attempt${count === 1 ? '' : 's'}`;
  const details: ModelCallFailedDetails = {
    callId,
    stopReason: last.reason,
    attemptCount: count,
    lastDecision: last,
    attempts: records.slice(-20).map((r) => ({ ...r })),
    billed: billedTotals(records),
    ...(spent ? { spent } : {}),
    ...(partialText !== undefined ? { partialText } : {}),
  };
  return ApplicationFailure.create({
    type: MODEL_CALL_FAILED,
    nonRetryable: true,
    message: [head + (count ? ':' : `: ${last.why}`), ...records.map(attemptLine)].join('\n'),
    details: [details],
  });
}
