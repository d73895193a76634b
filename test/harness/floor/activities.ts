import { ApplicationFailure } from '@temporalio/common';
import { APICallError } from '@ai-sdk/provider';
import type { ModelRequestResult } from '../../../common/attempt.js';
import type { ChatMessage, ToolDefinition } from '../../../common/attempt.js';
import { toPrompt } from '../../../activities/attempt/prompt.js';
import { toWireMessages } from '../../../common/messages.js';
import { successOf } from '../../../activities/attempt/result.js';
import { REQUEST_ID_HEADER } from '../../../activities/attempt/model-request.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { evaluate } from '../../../activities/tools/calculator.js';
import { BUILTIN_TOOLS } from '../../../activities/tools/builtins.js';

/**
 * What the floor's activity is given: the fields of model-retry's `ModelRequestInput` that shape the request
 * (and about as many bytes), nothing of the retry plan.
 */
export interface FloorRequestInput {
  workflowId: string;
  /** Sent as `X-Request-Id: <workflowId>/<requestId>`, as model-retry's attempt sends `<callId>.<attempt>`. */
  requestId: string;
  /** `provider:model`, resolved through the same provider registry as model-retry's attempts. */
  model: string;
  messages: ChatMessage[];
  /** The tools offered (an agent turn's floor: the same definitions model-retry's turn sends at every step). */
  tools?: ToolDefinition[];
  /** The request's own timeout (the AI SDK request is aborted after it), ms. */
  timeoutMs: number;
}

/** The failure type a floor request fails with (non-retryable: the floor's workflow decides, as ours does). */
export const FLOOR_REQUEST_FAILED = 'FloorRequestFailed';

/** Only the status crosses: an error's message or body may echo the request (and a key). */
function floorFailure(error: unknown): ApplicationFailure {
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  return ApplicationFailure.nonRetryable(
    `the provider answered ${status ?? 'no status'}`,
    FLOOR_REQUEST_FAILED,
  );
}

/**
 * Bench only: the platform's floor, plain activities as a Temporal user would write them, used by every
 * benchmark's floor. `floorModelRequest` makes THE SAME HTTP request as model-retry's `modelRequest` (the same
 * provider registry, the same AI SDK single request `doGenerate`, the same prompt and `X-Request-Id` header) and
 * returns the same record of the answer (`successOf`, so the result payload has the same size). What it leaves out
 * is what model-retry adds: heartbeats, the in-flight limits, classification and the failure's details, the answer
 * checks. `floorStreamRequest` is the same request streamed (read to its end here, nobody subscribes); the tool
 * activities run the calculator for the floor of an agent turn.
 */
export function createFloorActivities(providers: () => ProviderRegistry) {
  const request = (input: FloorRequestInput) => ({
    prompt: toPrompt(toWireMessages(input.messages)),
    ...(input.tools && input.tools.length > 0
      ? {
          tools: input.tools.map((t) => ({
            type: 'function' as const,
            name: t.name,
            ...(t.description === undefined ? {} : { description: t.description }),
            inputSchema: t.inputSchema as never,
          })),
        }
      : {}),
    abortSignal: AbortSignal.timeout(input.timeoutMs),
    headers: { [REQUEST_ID_HEADER]: `${input.workflowId}/${input.requestId}` },
  });
  return {
    async floorModelRequest(input: FloorRequestInput): Promise<ModelRequestResult> {
      const startedAt = new Date().toISOString();
      const resolved = providers().resolve(input.model);
      try {
        const result = await resolved.model.doGenerate(request(input));
        return successOf(result, resolved, { startedAt, endedAt: new Date().toISOString() });
      } catch (error) {
        throw floorFailure(error);
      }
    },
    async floorStreamRequest(input: FloorRequestInput): Promise<ModelRequestResult> {
      const startedAt = new Date().toISOString();
      let text = '';
      try {
        const { stream } = await providers().resolve(input.model).model.doStream(request(input));
        for await (const part of stream) {
          if (part.type === 'text-delta') text += part.delta;
          if (part.type === 'error') throw part.error;
        }
      } catch (error) {
        throw floorFailure(error);
      }
      return { text, toolCalls: [], finishReason: 'stop', startedAt, endedAt: new Date().toISOString() };
    },
    async floorTool(input: { args: string }): Promise<string> {
      const { expression } = JSON.parse(input.args) as { expression: string };
      return String(evaluate(expression));
    },
    /** The tools' definitions (the worker's built-in tools), as model-retry's `describeTools` gives the turn. */
    async floorDescribeTools(names: string[]): Promise<ToolDefinition[]> {
      return names.map((name) => {
        const spec = BUILTIN_TOOLS[name];
        if (!spec) throw ApplicationFailure.nonRetryable(`no tool ${name}`, 'UnknownTool');
        const { description, inputSchema } = spec;
        return { name, ...(description !== undefined ? { description } : {}), inputSchema };
      });
    },
    /**
     * The contract's floor's local activity (`contractFloorWorkflow`): what the worker says of itself, as
     * model-retry's `modelRetryConfig` answers a worker with no limits, prices or payload store.
     */
    async floorWorkerConfig(): Promise<{ payloadStore: boolean }> {
      return { payloadStore: false };
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
