import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { ChatMessage } from '../../common/attempt.js';
import type { FloorAnswer, FloorOtherActivities } from '../activities/floor-other.js';

const { floorModelRequest, floorStreamRequest, floorTool, floorDescribeTools } =
  proxyActivities<FloorOtherActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });

/** The floor of a call with retries: what a Temporal user writes by hand for the same plan. */
export interface FloorPromptInput {
  model: string;
  prompt: string;
  /** Attempts at most (1: a plain one-activity workflow). */
  attempts: number;
  /** The durable timer between two attempts, ms. */
  waitMs: number;
  /** Stream the answer (read to its end in the activity; nobody subscribes). */
  stream?: boolean;
}

/**
 * Bench only: the platform's floor for a call, a plain workflow calling one plain activity that sends the same
 * request; after a failure a timer, then the activity again. No search attributes, no plan, no records.
 */
export async function floorPromptWorkflow(input: FloorPromptInput): Promise<FloorAnswer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const request = input.stream ? floorStreamRequest : floorModelRequest;
      return await request({ model: input.model, prompt: input.prompt });
    } catch (error) {
      if (!(error instanceof ActivityFailure) || attempt >= input.attempts) throw error;
      await sleep(input.waitMs);
    }
  }
}

/** The floor of an agent turn. */
export interface FloorTurnInput {
  model: string;
  prompt: string;
  tools: string[];
  maxSteps: number;
}

/**
 * Bench only: the platform's floor for an agent turn, a plain workflow with the same activities: the tools
 * described once, then per step one model activity and one tool activity per tool call the answer asked for.
 * Each model request carries the conversation so far and the tools, as model-retry's turn sends them, so both
 * sides make the same HTTP requests and their activities carry about the same payloads.
 */
export async function floorTurnWorkflow(input: FloorTurnInput): Promise<{ steps: number; text: string }> {
  const tools = await floorDescribeTools(input.tools);
  const messages: ChatMessage[] = [{ role: 'user', content: input.prompt }];
  for (let step = 1; step <= input.maxSteps; step += 1) {
    const answer = await floorModelRequest({ model: input.model, prompt: input.prompt, messages, tools });
    const { text, toolCalls } = answer;
    messages.push({ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    if (toolCalls.length === 0 || step === input.maxSteps) return { steps: step, text };
    for (const call of toolCalls) {
      const content = await floorTool({ args: call.args });
      messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content });
    }
  }
  return { steps: input.maxSteps, text: '' };
}
