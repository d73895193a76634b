/**
 * Workflows written with the AI SDK, as a Temporal user writes them: the same weather agent on model-retry's
 * `durableModel` and on `@temporalio/ai-sdk`'s `TemporalProvider`, a streamed answer on each, and a structured
 * one. The integration tests and the `ai-sdk` benchmark (the comparison) run them; bundled with
 * `ModelRetryPlugin`, which puts the AI SDK's polyfills first.
 */
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel } from 'ai';
import { proxyActivities } from '@temporalio/workflow';
import { TemporalProvider } from '@temporalio/ai-sdk/workflow';
import type { RetryPolicy } from '@temporalio/common';
import { closeStream, durableModel, workflowStream } from '../../../workflows/ai-sdk/index.js';
import type { DurableModelOptions } from '../../../workflows/ai-sdk/index.js';

/** The tool's activity: the agent's tools may call activities. */
export interface WeatherActivities {
  lookupWeather(city: string): Promise<string>;
}

const { lookupWeather } = proxyActivities<WeatherActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

export interface AgentInput {
  model: string | string[];
  prompt: string;
  options?: DurableModelOptions;
}

export interface AgentOutput {
  text: string;
  steps: number;
  toolResults: unknown[];
  /** What each step's `providerMetadata.modelRetry` said (callId, model, attempts). */
  calls: unknown[];
}

/** The agent: a weather tool whose `execute` runs an activity, at most four steps. */
async function weatherAgent(model: LanguageModel, prompt: string): Promise<AgentOutput> {
  const result = await generateText({
    model,
    system: 'You answer questions about the weather.',
    prompt,
    tools: {
      weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        }),
        execute: async ({ city }) => lookupWeather(city),
      }),
    },
    stopWhen: stepCountIs(4),
  });
  return {
    text: result.text,
    steps: result.steps.length,
    toolResults: result.steps.flatMap((s) => s.toolResults.map((r) => r.output)),
    calls: result.steps.map((s) => s.providerMetadata?.modelRetry),
  };
}

/** The agent on model-retry: every model request a durable model call. */
export async function durableAgentWorkflow(input: AgentInput): Promise<AgentOutput> {
  return weatherAgent(durableModel(input.model, input.options), input.prompt);
}

/** What the `@temporalio/ai-sdk` side is given: one model id, and its activities' retry policy. */
export interface TemporalAgentInput {
  model: string;
  prompt: string;
  /** @default Temporal's default retry policy (1 s, doubling, at most 100 s, no attempt limit) */
  retry?: RetryPolicy;
}

function temporalModel(input: TemporalAgentInput, streamingTopic?: string): LanguageModel {
  const provider = new TemporalProvider({
    languageModel: {
      startToCloseTimeout: '30 seconds',
      ...(input.retry ? { retry: input.retry } : {}),
      ...(streamingTopic ? { streamingTopic } : {}),
    },
  });
  return provider.languageModel(input.model);
}

/** The same agent on `@temporalio/ai-sdk`: every model request an activity under Temporal's retry policy. */
export async function temporalAgentWorkflow(input: TemporalAgentInput): Promise<AgentOutput> {
  return weatherAgent(temporalModel(input), input.prompt);
}

/** `streamText` on `@temporalio/ai-sdk` (its streaming activity publishes raw parts into the workflow's stream). */
export async function temporalStreamWorkflow(
  input: TemporalAgentInput,
): Promise<{ text: string; deltas: number }> {
  workflowStream();
  return streamAnswer(temporalModel(input, 'ai-sdk.parts'), input.prompt);
}

async function streamAnswer(model: LanguageModel, prompt: string): Promise<{ text: string; deltas: number }> {
  let failure: unknown;
  const result = streamText({
    model,
    prompt,
    onError: ({ error }) => {
      failure = error;
    },
  });
  let text = '';
  let deltas = 0;
  // A durable model's failure throws out of the loop (its stream errors); TemporalProvider's reaches `onError`.
  try {
    for await (const delta of result.textStream) {
      text += delta;
      deltas += 1;
    }
  } finally {
    await closeStream();
  }
  if (failure !== undefined) throw failure;
  return { text, deltas };
}

/** `streamText` on a durable model: the text as the workflow got it once the attempt ended. */
export async function durableStreamWorkflow(input: AgentInput): Promise<{ text: string; deltas: number }> {
  workflowStream();
  return streamAnswer(durableModel(input.model, input.options), input.prompt);
}

/** `generateObject` on a durable model. */
export async function durableObjectWorkflow(input: AgentInput): Promise<unknown> {
  const { object } = await generateObject({
    model: durableModel(input.model, input.options),
    prompt: input.prompt,
    schema: jsonSchema<{ city: string; celsius: number }>({
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
      additionalProperties: false,
    }),
  });
  return object;
}

/**
 * Two requests of one durable model at once, then a third: what the model object's `budget` must count for the
 * third is what both earlier requests spent (a user's `Promise.all` over one model).
 */
export async function durableTwoAtOnceWorkflow(input: AgentInput): Promise<string[]> {
  const model = durableModel(input.model, input.options);
  const both = await Promise.all([
    generateText({ model, prompt: input.prompt }),
    generateText({ model, prompt: input.prompt }),
  ]);
  const third = await generateText({ model, prompt: input.prompt });
  return [...both, third].map((r) => r.text);
}
