import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/**
 * Bench only: model-retry's attempt activity, but with its classified failures made retryable, so that
 * Temporal's server-side retry policy (not a workflow) decides. Each try sends the same request as an attempt of
 * model-retry does (`X-Request-Id` carries Temporal's attempt number).
 */
export function createServerRetryActivities(modelRequest: ModelRequest) {
  return {
    async retryingModelRequest(input: ModelRequestInput): Promise<ModelRequestResult> {
      const attempt = activityInfo().attempt;
      try {
        return await modelRequest({ ...input, attempt, modelCallId: `${input.callId}.${attempt}` });
      } catch (error) {
        if (error instanceof ApplicationFailure && error.nonRetryable) {
          throw ApplicationFailure.retryable(error.message, error.type, ...(error.details ?? []));
        }
        throw error;
      }
    },
  };
}

export type ServerRetryActivities = ReturnType<typeof createServerRetryActivities>;
