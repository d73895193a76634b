/**
 * The workflows of Temporal's own `@temporalio/ai-sdk` test suite, re-expressed on model-retry: the same
 * generateText, tools, structured output, middleware, telemetry, MCP, embedding and streamText uses, with one
 * change each, the model line (`durableModel('mock:gpt-4o-mini')` where the suite has `TemporalProvider`'s
 * `languageModel('gpt-4o-mini')`). `mock:` is the scripted AI SDK provider the fixture registers in the worker
 * (`temporal-suite.ts`). Bundled with `ModelRetryPlugin`, as a user's worker bundles them; `ai` is imported
 * before anything of model-retry on purpose: the plugin puts the polyfills first, so import order must not matter.
 */
import { embedMany, generateText, isStepCount, Output, streamText, tool, wrapLanguageModel } from 'ai';
import type { LanguageModelMiddleware, Telemetry } from 'ai';
import { z } from 'zod';
import { proxyActivities } from '@temporalio/workflow';
import { TemporalMCPClient } from '@temporalio/ai-sdk/workflow';
import {
  closeStream,
  durableEmbeddingModel,
  durableModel,
  workflowStream,
} from '../../workflows/ai-sdk/index.js';

/** The one model every workflow here asks: the fixture's scripted provider, `gpt-4o-mini`. */
export const SUITE_MODEL = 'mock:gpt-4o-mini';
export const SUITE_EMBEDDING_MODEL = 'mock:text-embedding-3-small';

/** The tool activity of the suite: a fixed forecast for the city asked. */
export interface SuiteActivities {
  getWeather(input: {
    location: string;
  }): Promise<{ city: string; temperatureRange: string; conditions: string }>;
}

const { getWeather } = proxyActivities<SuiteActivities>({ startToCloseTimeout: '1 minute' });

const HAIKUS = 'You only respond in haikus.';

/** generateText with instructions, nothing else. */
export async function helloWorldAgent(prompt: string): Promise<string> {
  const result = await generateText({ model: durableModel(SUITE_MODEL), prompt, instructions: HAIKUS });
  return result.text;
}

/** A tool whose `execute` runs an activity, in a loop of at most five steps. */
export async function toolsWorkflow(question: string): Promise<string> {
  const result = await generateText({
    model: durableModel(SUITE_MODEL),
    prompt: question,
    instructions: 'You are a helpful agent.',
    tools: {
      getWeather: tool({
        description: 'Get the weather for a given city',
        inputSchema: z.object({ location: z.string().describe('The location to get the weather for') }),
        execute: async (input) => getWeather(input),
      }),
    },
    stopWhen: isStepCount(5),
  });
  return result.text;
}

/** generateText with `Output.object`: the answer parsed and validated against a zod schema. */
export async function generateObjectWorkflow(): Promise<string> {
  const { output } = await generateText({
    model: durableModel(SUITE_MODEL),
    output: Output.object({
      schema: z.object({
        recipe: z.object({
          name: z.string(),
          ingredients: z.array(z.object({ name: z.string(), amount: z.string() })),
          steps: z.array(z.string()),
        }),
      }),
    }),
    prompt: 'Generate a lasagna recipe.',
  });
  return output.recipe.name;
}

/** A caching middleware around the durable model (`wrapLanguageModel`). */
export async function middlewareWorkflow(prompt: string): Promise<string> {
  const cache = new Map<string, unknown>();
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params }) => {
      const key = JSON.stringify(params);
      if (cache.has(key)) return cache.get(key) as Awaited<ReturnType<typeof doGenerate>>;
      const result = await doGenerate();
      cache.set(key, result);
      return result;
    },
  };
  const model = wrapLanguageModel({ model: durableModel(SUITE_MODEL), middleware });
  const result = await generateText({ model, prompt, instructions: HAIKUS });
  return result.text;
}

/**
 * The operation name `@ai-sdk/otel` gives an AI SDK operation's root span (`mapOperationName`): generateText and
 * streamText are an agent invocation.
 */
const OTEL_OPERATION: Record<string, string> = {
  'ai.generateText': 'invoke_agent',
  'ai.streamText': 'invoke_agent',
  'ai.generateObject': 'invoke_agent',
  'ai.streamObject': 'invoke_agent',
};

/** What the AI SDK's telemetry saw of a run: the spans `@ai-sdk/otel` would open, by name, and their model. */
export interface TelemetrySeen {
  text: string;
  /** `<operation> <modelId>` for the operation, `chat <modelId>` for each language model call, in order. */
  spanNames: string[];
  /** `gen_ai.provider.name`'s source: the provider each event named. */
  providers: string[];
}

/**
 * generateText with telemetry on. `@ai-sdk/otel` (the suite's integration) is not a dependency here, so the
 * integration is a recorder of the events it names its spans from (`onStart`: `invoke_agent <modelId>`;
 * `onLanguageModelCallStart`: `chat <modelId>`): which names the spans get is the model's part (its `modelId` and
 * `provider`). Note for `@ai-sdk/otel` itself: its `chat` span reads `performance.now()`, which the sandbox has only
 * with Temporal's OpenTelemetry workflow interceptors installed (as the suite installs them); without them that
 * span is silently not opened.
 */
export async function telemetryWorkflow(prompt: string): Promise<TelemetrySeen> {
  const spanNames: string[] = [];
  const providers: string[] = [];
  const recorder: Telemetry = {
    onStart: (event) => {
      const e = event as { operationId: string; modelId: string; provider: string };
      spanNames.push(`${OTEL_OPERATION[e.operationId] ?? e.operationId} ${e.modelId}`);
      providers.push(e.provider);
    },
    onLanguageModelCallStart: (event) => {
      const e = event as { modelId: string; provider: string };
      spanNames.push(`chat ${e.modelId}`);
      providers.push(e.provider);
    },
  };
  const result = await generateText({
    model: durableModel(SUITE_MODEL),
    prompt,
    instructions: HAIKUS,
    telemetry: { isEnabled: true, integrations: recorder },
  });
  return { text: result.text, spanNames, providers };
}

/** MCP tools (listed and called through `@temporalio/ai-sdk`'s activities) beside the durable model. */
export async function mcpWorkflow(prompt: string): Promise<string> {
  const mcpClient = new TemporalMCPClient({ name: 'testServer' });
  const tools = await mcpClient.tools();
  const result = await generateText({
    model: durableModel(SUITE_MODEL),
    prompt,
    tools,
    instructions: 'What files do you have?',
    stopWhen: isStepCount(5),
  });
  return result.text;
}

/** An MCP tool's input schema as the workflow sees it after the list activity. */
export async function mcpSchemaTestWorkflow(): Promise<{
  toolName: string;
  schemaType: string | undefined;
  hasProperties: boolean;
  propertyDescription: string | undefined;
}> {
  const mcpClient = new TemporalMCPClient({ name: 'testServer' });
  const tools = await mcpClient.tools();
  const [toolName, mcpTool] = Object.entries(tools)[0]!;
  const schema = (
    mcpTool as unknown as {
      inputSchema: {
        jsonSchema: { type?: string; properties?: Record<string, { description?: string }> };
      };
    }
  ).inputSchema.jsonSchema;
  return {
    toolName,
    schemaType: schema.type,
    hasProperties: schema.properties !== undefined,
    propertyDescription: schema.properties?.testParam?.description,
  };
}

/** embedMany on `durableEmbeddingModel` (where the suite has `TemporalProvider`'s `embeddingModel`). */
export async function embeddingWorkflow(
  values: string[],
): Promise<{ count: number; dimensions: number; totalTokens?: number }> {
  const result = await embedMany({ model: durableEmbeddingModel(SUITE_EMBEDDING_MODEL), values });
  return {
    count: result.embeddings.length,
    dimensions: result.embeddings[0]?.length ?? 0,
    totalTokens: result.usage?.tokens,
  };
}

/** Everything a streamed result says, in JSON (dates as ISO strings). */
export interface StreamedResult {
  text: string;
  reasoningText: string | undefined;
  content: unknown[];
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  finishReason: string;
  rawFinishReason: string | undefined;
  usage: { inputTokens: number | undefined; outputTokens: number | undefined };
  warnings: unknown[];
  response: { id: string; modelId: string; timestamp: string; headers: Record<string, string> | undefined };
  /** The parts of `fullStream` the workflow read, by type, in order. */
  partTypes: string[];
}

/**
 * streamText over the durable model, its `fullStream` read to the end, then the result's promises. The tool has no
 * `execute`: the scripted stream calls it, and the one step ends with the call.
 */
export async function streamPartsWorkflow(prompt: string): Promise<StreamedResult> {
  workflowStream();
  try {
    const result = streamText({
      model: durableModel(SUITE_MODEL),
      prompt,
      tools: {
        getWeather: tool({
          description: 'Get the weather for a given city',
          inputSchema: z.object({ location: z.string() }),
        }),
      },
    });
    const partTypes: string[] = [];
    for await (const part of result.fullStream) partTypes.push(part.type);
    const [
      text,
      reasoningText,
      content,
      toolCalls,
      finishReason,
      rawFinishReason,
      usage,
      warnings,
      response,
    ] = await Promise.all([
      result.text,
      result.reasoningText,
      result.content,
      result.toolCalls,
      result.finishReason,
      result.rawFinishReason,
      result.usage,
      result.warnings,
      result.response,
    ]);
    return {
      text,
      reasoningText,
      content: JSON.parse(JSON.stringify(content)) as unknown[],
      toolCalls: toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
      finishReason,
      rawFinishReason,
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
      warnings: JSON.parse(JSON.stringify(warnings ?? [])) as unknown[],
      response: {
        id: response.id,
        modelId: response.modelId,
        timestamp: response.timestamp.toISOString(),
        headers: response.headers,
      },
      partTypes,
    };
  } finally {
    await closeStream();
  }
}

/**
 * streamText whose stream fails: `await result.text` with no `onError`, so the failure reaches the workflow as it
 * is (model-retry's design: the run fails with `ModelCallFailed`, not a retried task).
 */
export async function streamFailureWorkflow(prompt: string): Promise<string> {
  workflowStream();
  try {
    const result = streamText({ model: durableModel(SUITE_MODEL), prompt });
    return await result.text;
  } finally {
    await closeStream();
  }
}
