/**
 * An answer too big for Temporal fails its attempt at once, clearly. Without this check the worker would send a
 * completion over the server's payload limit; the server turns it into a failure of no class the policy knows
 * (`Unknown`, retried on the same backend, so the provider is paid again for the same too-big answer). An answer
 * that fits one payload but not the call's result (the answer with every attempt record) would end the run
 * TERMINATED, so the limit leaves room for them ({@link resultRoomBytes}).
 */
import { Context } from '@temporalio/activity';
import type { LoadedDataConverter } from '@temporalio/common';
import { attemptFailure, failureDetails } from './attempt-failure.js';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import {
  PAYLOAD_STORE_FIX,
  TEMPORAL_PAYLOAD_LIMIT_BYTES,
  encodedPayloadSize,
  megabytes,
} from '../../payloads/payload-size.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/** The most one attempt record takes in a call's result (its message and code are bounded), with room to spare. */
const RECORD_BYTES = 1024;

/**
 * What the call's result adds around the answer: its totals and last decision, and one record per attempt so far
 * (this one included). The workflow returns the answer with them in one payload, which Temporal refuses over
 * 2 MB by terminating the run, so an answer is measured against the limit less this room.
 */
export function resultRoomBytes(attempt: number): number {
  return 16 * 1024 + Math.max(1, attempt) * RECORD_BYTES;
}

/**
 * `modelRequest`, with its answer measured as the worker will store it (its data converter: with a payload
 * store, a long answer becomes a reference and passes). An answer over Temporal's limit fails as
 * `Misconfigured` (the worker cannot carry it: its action drops the backend, so it is not asked again for the
 * same answer), naming the fix, with the usage the provider reported (it was billed).
 */
export function withResultLimit(modelRequest: ModelRequest): ModelRequest {
  return async function modelRequestBounded(input) {
    const result = await modelRequest(input);
    const { bytes } = await encodedPayloadSize(result, workerConverter());
    const limit = TEMPORAL_PAYLOAD_LIMIT_BYTES - resultRoomBytes(input.attempt);
    if (bytes <= limit) return result;
    const now = Date.now();
    const message =
      `the answer is ${bytes} bytes as a Temporal payload, over the ${limit} it may take (Temporal's ` +
      `${megabytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)} less the call's records), so it cannot be recorded: lower ` +
      (input.request.embed !== undefined
        ? "the texts per request (durableEmbeddingModel's `maxEmbeddingsPerCall`, or `dimensions`), "
        : `\`settings.maxOutputTokens\`, `) +
      PAYLOAD_STORE_FIX;
    const details = failureDetails(
      { misconfigured: true },
      message,
      [],
      {
        startedAt: result.startedAt,
        endedAt: new Date(now).toISOString(),
      },
      now,
    );
    throw attemptFailure(result.usage === undefined ? details : { ...details, usage: result.usage });
  };
}

/** The data converter of the worker running the activity (Temporal's default outside a worker). */
function workerConverter(): LoadedDataConverter | undefined {
  try {
    return Context.current().client.options.loadedDataConverter;
  } catch {
    return undefined; // a MockActivityEnvironment without a client
  }
}
