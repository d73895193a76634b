/**
 * Bench only: the platform's floor, what a Temporal user would write without model-retry, beside which every
 * benchmark measures model-retry. The activities (test/harness/floor/activities.ts) make the same request as model-retry's
 * attempt; these workflows add nothing to it but Temporal's own parts: no plan, no search attributes, no records.
 */
import {
  ActivityFailure,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  ATTEMPT_COUNT,
  CLASSES_MET,
  LAST_FAILURE_CLASS,
  MODELS_TRIED,
  STOP_REASON,
} from '../../../common/search-attributes.js';
import type { ChatMessage, ModelRequestResult, ToolDefinition } from '../../../common/attempt.js';
import type { FloorActivities } from './activities.js';

/** One model request of the floor. */
export interface FloorCallInput {
  /** `provider:model`. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** The request's timeout, ms (the activity's start-to-close adds 5 s, as model-retry's grace). */
  timeoutMs: number;
}

/** The floor's retry path: at most `waits.length` retries, the i-th after a durable timer of `waits[i]` ms. */
export interface FloorRetryInput extends FloorCallInput {
  waits: number[];
}

/** The floor of a call with retries, as the retry-overhead, streaming and replay benchmarks start it. */
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

/** The floor of an agent turn. */
export interface FloorTurnInput {
  model: string;
  prompt: string;
  tools: string[];
  maxSteps: number;
}

const PROMPT_TIMEOUT_MS = 25_000;

function activities(timeoutMs: number) {
  return proxyActivities<FloorActivities>({
    startToCloseTimeout: timeoutMs + 5000,
    retry: { maximumAttempts: 1 },
  });
}

function request(input: FloorCallInput, attempt: number, stream = false): Promise<ModelRequestResult> {
  const { floorModelRequest, floorStreamRequest } = activities(input.timeoutMs);
  return (stream ? floorStreamRequest : floorModelRequest)({
    workflowId: workflowInfo().workflowId,
    requestId: `c1.${attempt}`,
    model: input.model,
    messages: input.messages,
    ...(input.tools ? { tools: input.tools } : {}),
    timeoutMs: input.timeoutMs,
  });
}

/** The floor of a call that answers: a plain workflow calling one plain activity. */
export async function floorCallWorkflow(input: FloorCallInput): Promise<ModelRequestResult> {
  return request(input, 1);
}

/**
 * The floor of the retry path: a plain workflow that calls the activity, and after a failure waits on a durable
 * timer and calls it again (the same waits as model-retry's plan), so each retry costs what Temporal itself needs
 * for it: the failure, a workflow task, the timer, a workflow task, the next activity.
 */
export async function floorRetryWorkflow(input: FloorRetryInput): Promise<ModelRequestResult> {
  return retrying(input, false);
}

async function retrying(
  input: FloorRetryInput,
  stream: boolean,
  failed?: (attempt: number) => void,
): Promise<ModelRequestResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request(input, attempt, stream);
    } catch (error) {
      const wait = input.waits[attempt - 1];
      if (!(error instanceof ActivityFailure) || wait === undefined) throw error;
      failed?.(attempt);
      await sleep(wait);
    }
  }
}

const { floorWorkerConfig } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '3 seconds' });

/**
 * The floor plus what the contract itself asks of every call, and nothing else of model-retry's: the worker's
 * settings through one local activity at the start (a marker in history: "Workflow code learns which backends have
 * health or limits settings through one local activity at the call's start"), the failure class in the run's search
 * attributes when a call first meets it, and the stop's search attributes in one upsert. Beside it, the rest of
 * ours' cost is model-retry's own code (plan, records, classification), not the contract's events.
 */
export async function contractFloorWorkflow(input: FloorRetryInput): Promise<ModelRequestResult> {
  await floorWorkerConfig();
  let attempts = 1;
  const result = await retrying(input, false, (attempt) => {
    attempts = attempt + 1;
    // Every scripted failure here is a 502 (one class): upserted once, as ours does a new class.
    if (attempt === 1) upsertSearchAttributes([{ key: CLASSES_MET, value: ['ServerError'] }]);
  });
  upsertSearchAttributes([
    { key: STOP_REASON, value: 'succeeded' },
    { key: ATTEMPT_COUNT, value: attempts },
    { key: MODELS_TRIED, value: [input.model] },
    ...(attempts > 1
      ? [
          { key: LAST_FAILURE_CLASS, value: 'ServerError' },
          { key: CLASSES_MET, value: ['ServerError'] },
        ]
      : []),
  ]);
  return result;
}

/** `floorRetryWorkflow` asked with a prompt, `attempts` and one wait (optionally streamed). */
export async function floorPromptWorkflow(input: FloorPromptInput): Promise<ModelRequestResult> {
  const waits = Array.from({ length: Math.max(0, input.attempts - 1) }, () => input.waitMs);
  const messages: ChatMessage[] = [{ role: 'user', content: input.prompt }];
  return retrying(
    { model: input.model, messages, timeoutMs: PROMPT_TIMEOUT_MS, waits },
    input.stream === true,
  );
}

/**
 * The floor of an agent turn, a plain workflow with the same activities: the tools described once, then per step
 * one model activity and one tool activity per tool call the answer asked for. Each model request carries the
 * conversation so far and the tools, as model-retry's turn sends them, so both sides make the same HTTP requests.
 */
export async function floorTurnWorkflow(input: FloorTurnInput): Promise<{ steps: number; text: string }> {
  const { floorDescribeTools, floorTool } = activities(PROMPT_TIMEOUT_MS);
  const tools = await floorDescribeTools(input.tools);
  const messages: ChatMessage[] = [{ role: 'user', content: input.prompt }];
  for (let step = 1; step <= input.maxSteps; step += 1) {
    const call = { model: input.model, messages, tools, timeoutMs: PROMPT_TIMEOUT_MS };
    const { text, toolCalls } = await request(call, step);
    messages.push({ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    if (toolCalls.length === 0 || step === input.maxSteps) return { steps: step, text };
    for (const toolCall of toolCalls) {
      const content = await floorTool({ args: toolCall.args });
      messages.push({ role: 'tool', toolCallId: toolCall.id, toolName: toolCall.name, content });
    }
  }
  return { steps: input.maxSteps, text: '' };
}

/**
 * The contract's floor of an agent turn: the floor's turn plus what the contract asks of the turn's run: the
 * worker's settings through one local activity at the start (the marker), and the stop's search attributes in one
 * upsert at the end (no call here meets a failure). Beside it, the rest of ours' cost is model-retry's own code.
 */
export async function contractFloorTurnWorkflow(
  input: FloorTurnInput,
): Promise<{ steps: number; text: string }> {
  await floorWorkerConfig();
  const result = await floorTurnWorkflow(input);
  upsertSearchAttributes([
    { key: STOP_REASON, value: 'succeeded' },
    { key: ATTEMPT_COUNT, value: result.steps },
    { key: MODELS_TRIED, value: [input.model] },
  ]);
  return result;
}
