import { APICallError } from '@ai-sdk/provider';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { toPrompt, toTools } from '../../activities/attempt/prompt.js';
import { REQUEST_ID_HEADER } from '../../activities/attempt/model-request.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import { evaluate } from '../../activities/tools/calculator.js';
import { BUILTIN_TOOLS } from '../../activities/tools/builtins.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../common/attempt.js';

/** What the floor's model activity returns: the text and the tool calls the model asked for. */
export interface FloorAnswer {
  text: string;
  toolCalls: ToolCall[];
}

/**
 * The floor's model request: a prompt, or (an agent turn's floor) the conversation so far and the tools, so that
 * it sends the very request model-retry's attempt sends at the same step.
 */
export interface FloorModelInput {
  model: string;
  prompt: string;
  messages?: ChatMessage[];
  tools?: ToolDefinition[];
}

/**
 * Bench only: the platform's floor, plain activities a Temporal user writes without model-retry. The model
 * activity sends the same request to the same provider (the AI SDK model the worker's registry resolves), with
 * no classification, no heartbeat, no streaming topic; a failure is a plain non-retryable `ApplicationFailure`
 * (the floor's workflow decides, as model-retry's does). The tool activity evaluates the calculator's expression.
 */
export function createFloorOtherActivities(providers: ProviderRegistry) {
  return {
    async floorModelRequest(input: FloorModelInput): Promise<FloorAnswer> {
      const { workflowExecution, activityId } = activityInfo();
      const workflowId = workflowExecution?.workflowId ?? 'floor';
      try {
        const result = await providers.resolve(input.model).model.doGenerate({
          prompt: toPrompt(input.messages ?? [{ role: 'user', content: input.prompt }]),
          ...(input.tools && input.tools.length > 0 ? { tools: toTools(input.tools) } : {}),
          headers: { [REQUEST_ID_HEADER]: `${workflowId}/floor.${activityId}` },
        });
        const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
        const toolCalls = result.content.flatMap((c) =>
          c.type === 'tool-call' ? [{ id: c.toolCallId, name: c.toolName, args: c.input }] : [],
        );
        return { text, toolCalls };
      } catch (error) {
        const status = APICallError.isInstance(error) ? error.statusCode : undefined;
        throw ApplicationFailure.nonRetryable(
          `floor request failed (${status ?? 'no status'})`,
          'FloorFailure',
        );
      }
    },
    /** The same request streamed: the parts read to the end here, the text returned whole (no subscriber). */
    async floorStreamRequest(input: { model: string; prompt: string }): Promise<FloorAnswer> {
      const { workflowExecution, activityId } = activityInfo();
      const workflowId = workflowExecution?.workflowId ?? 'floor';
      const { stream } = await providers.resolve(input.model).model.doStream({
        prompt: toPrompt([{ role: 'user', content: input.prompt }]),
        headers: { [REQUEST_ID_HEADER]: `${workflowId}/floor.${activityId}` },
      });
      let text = '';
      for await (const part of stream) {
        if (part.type === 'text-delta') text += part.delta;
        if (part.type === 'error')
          throw ApplicationFailure.nonRetryable('floor stream failed', 'FloorFailure');
      }
      return { text, toolCalls: [] };
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
  };
}

export type FloorOtherActivities = ReturnType<typeof createFloorOtherActivities>;
