import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/**
 * Counts every attempt in the worker's metrics (`model_retry_attempts` by outcome, failure class, provider and
 * model; `model_retry_attempt_ms`, how long it took), through the activity's metric meter, which the worker's
 * runtime exports (Prometheus with `model-retry worker --metrics`). Works wherever the attempt activity runs,
 * also under `callModel` in a user's own workflow.
 */
export function withAttemptMetrics(modelRequest: ModelRequest): ModelRequest {
  return async function modelRequestCounted(input) {
    const meter = Context.current().metricMeter;
    const started = Date.now();
    const count = (outcome: string, failureClass: string) => {
      const tags = {
        outcome,
        failure_class: failureClass,
        provider: input.model.split(':')[0] ?? '',
        model: input.model,
      };
      meter.createCounter('model_retry_attempts', 'attempts', 'Model call attempts').add(1, tags);
      meter
        .createHistogram('model_retry_attempt_ms', 'int', 'ms', 'How long model call attempts took')
        .record(Date.now() - started, tags);
    };
    try {
      const result = await modelRequest(input);
      count('succeeded', 'none');
      return result;
    } catch (error) {
      if (error instanceof CancelledFailure) count('cancelled', 'none');
      else count('failed', error instanceof ApplicationFailure ? (error.type ?? 'Unknown') : 'Unknown');
      throw error;
    }
  };
}
