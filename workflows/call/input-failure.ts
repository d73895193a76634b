import { ApplicationFailure } from '@temporalio/workflow';
import { InvalidRetryPlanError } from '../../policy/index.js';
import { INVALID_RETRY_PLAN } from '../../common/call.js';

/** An input error a workflow refuses with: its class, and the failure type it becomes. */
type FieldError = Error & { field: string };

/**
 * The non-retryable `ApplicationFailure` a workflow fails with when its plan or input is invalid (the plan's
 * `InvalidRetryPlan`, or `inputErrorType` for `inputErrorClass`); any other error is returned unchanged.
 */
export function inputFailure(
  error: unknown,
  inputErrorClass: abstract new (...args: never[]) => FieldError,
  inputErrorType: string,
): unknown {
  if (error instanceof InvalidRetryPlanError) {
    return ApplicationFailure.create({
      type: INVALID_RETRY_PLAN,
      nonRetryable: true,
      message: error.message,
      details: [{ field: error.field, problems: error.problems }],
    });
  }
  if (error instanceof inputErrorClass) {
    return ApplicationFailure.create({
      type: inputErrorType,
      nonRetryable: true,
      message: error.message,
      details: [{ field: error.field }],
    });
  }
  return error;
}
