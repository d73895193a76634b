import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { startModelCall } from '../../client/model-call-client.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails, ModelCallInput } from '../../common/call.js';

/** How a call ended: its stop reason (`succeeded`, `budget`, ...), or `failed` when it ended some other way. */
export async function callToItsEnd(
  client: Client,
  taskQueue: string,
  input: ModelCallInput,
): Promise<string> {
  try {
    const handle = await startModelCall(client, input, { taskQueue });
    return (await handle.result()).stopReason;
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === MODEL_CALL_FAILED) {
      const details = cause.details?.[0] as ModelCallFailedDetails | undefined;
      if (details?.stopReason) return details.stopReason;
    }
    return 'failed';
  }
}
