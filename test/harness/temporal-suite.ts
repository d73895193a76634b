/**
 * The fixture of the port of Temporal's `@temporalio/ai-sdk` test suite (`temporal-ai-sdk-*.test.ts`): a worker
 * with `ModelRetryPlugin` whose registry has one AI SDK provider, `mock`, answering with the AI SDK's own mock
 * models (`MockLanguageModelV4`, `MockEmbeddingModelV4` from `ai/test`) that each test scripts; the suite's
 * `getWeather` activity; and, beside model-retry, `@temporalio/ai-sdk`'s MCP activities on an in-memory MCP
 * server (`testServer`: one tool, `testTool`).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type {
  EmbeddingModelV4,
  EmbeddingModelV4Result,
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { createMCPClient } from '@ai-sdk/mcp';
import type { MCPTransport } from '@ai-sdk/mcp';
import { createActivities as createTemporalAiSdkActivities } from '@temporalio/ai-sdk';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { MockEmbeddingModelV4, MockLanguageModelV4, MockProviderV4 } from 'ai/test';
import { inject } from 'vitest';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { encodingFailureConverterPath } from '../../payloads/data-converter.js';
import { quietBundleLogger } from './quiet.js';
import type { SuiteActivities } from './temporal-suite-workflows.js';

const SUITE_WORKFLOWS = fileURLToPath(new URL('./temporal-suite-workflows.ts', import.meta.url));

// ---------------------------------------------------------------------------------------------------------------
// The scripted answers (the suite's `contentResponse`, `textResponse`, `toolCallResponse`, `embeddingResponse`)

export function usageOf(inputTokens = 10, outputTokens = 20): LanguageModelV4Usage {
  return {
    inputTokens: { total: inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: undefined, reasoning: undefined },
  };
}

function finish(unified: LanguageModelV4FinishReason['unified']): LanguageModelV4FinishReason {
  return { unified, raw: undefined };
}

export function contentResponse(
  content: LanguageModelV4Content[],
  finishReason: LanguageModelV4FinishReason = finish('stop'),
): LanguageModelV4GenerateResult {
  return { content, finishReason, usage: usageOf(), warnings: [] };
}

export function textResponse(text: string): LanguageModelV4GenerateResult {
  return contentResponse([{ type: 'text', text }]);
}

export function toolCallResponse(toolName: string, input: string): LanguageModelV4GenerateResult {
  return contentResponse(
    [{ type: 'tool-call', toolCallId: 'call_yY3nlDwH5BQSJo63qC61L4ZB', toolName, input }],
    finish('tool-calls'),
  );
}

/** 1536 numbers per value, as OpenAI's text-embedding-3-small gives. */
export function embeddingResponse(values: string[]): EmbeddingModelV4Result {
  return {
    embeddings: values.map((_, index) => Array.from({ length: 1536 }, (_, i) => Math.sin(index + i * 0.01))),
    usage: { tokens: values.reduce((sum, v) => sum + v.length, 0) },
    warnings: [],
  };
}

/** A stream that gives `parts` and ends, with the request and response the suite's streaming model reports. */
export function streamOf(
  parts: LanguageModelV4StreamPart[],
  headers: Record<string, string>,
): LanguageModelV4StreamResult {
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
    request: { body: 'test-request-body' },
    response: { headers },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The provider the worker's registry resolves `mock:<model>` through

/**
 * The `mock` provider: each test scripts the model its workflow meets (`script`), and every attempt the worker
 * makes resolves to that model, so the same mock answers reach each of durableModel's attempts.
 */
export class ScriptedProvider {
  private language: LanguageModelV4 = new MockLanguageModelV4();
  private embedding: EmbeddingModelV4 = new MockEmbeddingModelV4();
  /** The model ids the registry asked for, in order. */
  readonly asked: string[] = [];

  /** Answers `doGenerate` with `responses` in turn (and `doStream` with `streams`), as a new mock. */
  script(options: {
    generate?: LanguageModelV4GenerateResult[];
    stream?: () => LanguageModelV4StreamResult;
  }): MockLanguageModelV4 {
    const generate = options.generate ?? [];
    let generated = 0;
    const model = new MockLanguageModelV4({
      provider: 'temporal',
      modelId: 'TestModel',
      doGenerate: async (): Promise<LanguageModelV4GenerateResult> => {
        const next = generate[generated];
        generated += 1;
        if (next === undefined)
          throw new Error('Called generate more times than responses given to the test');
        return next;
      },
      ...(options.stream ? { doStream: async () => options.stream!() } : {}),
    });
    this.language = model;
    return model;
  }

  /** Answers `doEmbed` with `responses` in turn, as a new mock. */
  scriptEmbeddings(responses: EmbeddingModelV4Result[]): MockEmbeddingModelV4 {
    const model = new MockEmbeddingModelV4({
      provider: 'temporal',
      modelId: 'TestEmbeddingModel',
      maxEmbeddingsPerCall: null,
      supportsParallelCalls: true,
      doEmbed: responses,
    });
    this.embedding = model;
    return model;
  }

  languageModel(modelId: string): LanguageModelV4 {
    this.asked.push(modelId);
    return this.language;
  }

  embeddingModel(modelId: string): EmbeddingModelV4 {
    this.asked.push(modelId);
    return this.embedding;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// An in-memory MCP server (the suite's `createTestMcpClient`, without the MCP SDK: a JSON-RPC transport)

type JsonRpc = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };

const TEST_TOOL = {
  name: 'testTool',
  description: 'A test tool',
  inputSchema: {
    type: 'object',
    properties: { testParam: { type: 'string', description: 'Test parameter' } },
    required: ['testParam'],
  },
};

/** A transport whose other end is a server with one tool, `testTool`, that answers `ok`. */
class InMemoryMcpServer implements MCPTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: MCPTransport['onmessage'];
  /** The tools/call requests the server got: their tool and arguments. */
  constructor(private readonly calls: { name: unknown; arguments: unknown }[]) {}

  async start(): Promise<void> {}

  async send(message: unknown): Promise<void> {
    const m = message as JsonRpc;
    if (m.id === undefined || m.method === undefined) return; // notifications, responses
    const result = this.answer(m.method, m.params ?? {});
    const reply =
      result === undefined
        ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `no method ${m.method}` } }
        : { jsonrpc: '2.0', id: m.id, result };
    queueMicrotask(() => this.onmessage?.(reply as Parameters<NonNullable<MCPTransport['onmessage']>>[0]));
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  private answer(method: string, params: Record<string, unknown>): Record<string, unknown> | undefined {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'test-server', version: '1.0.0' },
        };
      case 'tools/list':
        return { tools: [TEST_TOOL] };
      case 'tools/call':
        this.calls.push({ name: params.name, arguments: params.arguments });
        return { content: [{ type: 'text', text: 'ok' }] };
      case 'ping':
        return {};
      default:
        return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The worker

export async function getWeather(input: { location: string }) {
  return { city: input.location, temperatureRange: '14-20C', conditions: 'Sunny with wind.' };
}
const suiteActivities: SuiteActivities = { getWeather };

/** The suite's workflows bundled as a user's worker bundles them with `ModelRetryPlugin` (its polyfills first). */
export async function bundleSuiteWorkflows(): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: SUITE_WORKFLOWS,
    plugins: [new ModelRetryPlugin()],
    failureConverterPath: encodingFailureConverterPath(),
    logger: quietBundleLogger,
  });
  return bundle.code;
}

export interface SuiteWorker {
  taskQueue: string;
  client: Client;
  provider: ScriptedProvider;
  /** The MCP tool calls the in-memory server got. */
  mcpCalls: { name: unknown; arguments: unknown }[];
  plugin(): ModelRetryPlugin;
  start(workflow: string, args: unknown[]): Promise<WorkflowHandle>;
  stop(): Promise<void>;
}

/** A worker of the suite's workflows on the shared dev server, with a client for it. */
export async function startSuiteWorker(code: string): Promise<SuiteWorker> {
  const namespace = inject('temporalNamespace');
  const address = inject('temporalAddress');
  const provider = new ScriptedProvider();
  const plugin = () =>
    new ModelRetryPlugin({
      checkSearchAttributes: false,
      activities: {
        env: {},
        aiSdkProviders: { mock: { create: () => provider, secretEnv: [] } },
      },
    });
  const mcpCalls: { name: unknown; arguments: unknown }[] = [];
  const temporalAiSdk = createTemporalAiSdkActivities(
    new MockProviderV4(),
    {
      testServer: () => createMCPClient({ transport: new InMemoryMcpServer(mcpCalls) }),
    } as unknown as Parameters<typeof createTemporalAiSdkActivities>[1],
    { mcpConnectionIdleTimeout: 0 },
  ) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const mcpActivities = Object.fromEntries(
    Object.entries(temporalAiSdk).filter(([name]) => name.startsWith('testServer-')),
  );
  const taskQueue = `temporal-suite-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    activities: { ...suiteActivities, ...mcpActivities },
    plugins: [plugin()],
    shutdownGraceTime: '2 seconds',
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace, plugins: [plugin()] });
  return {
    taskQueue,
    client,
    provider,
    mcpCalls,
    plugin,
    start: (workflow, args) =>
      client.workflow.start(workflow, {
        args,
        taskQueue,
        workflowId: `temporal-suite-${randomUUID()}`,
        workflowExecutionTimeout: '60 seconds',
      }),
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    },
  };
}

/** The run's result, or what it failed with (the failure's cause: `ModelCallFailed` and the like). */
export async function outcome<T>(handle: WorkflowHandle): Promise<{ result?: T; failure?: unknown }> {
  try {
    return { result: (await handle.result()) as T };
  } catch (error) {
    return { failure: error instanceof WorkflowFailedError ? error.cause : error };
  }
}

/** The activity types the run scheduled, in order. */
export async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}
