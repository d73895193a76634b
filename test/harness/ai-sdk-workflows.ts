/**
 * The workflows the AI SDK integration tests run: the benchmark's agent workflows (`test/harness/bundle/ai-sdk-agent.ts`,
 * re-exported) and the tests' own, which check what a durable model carries and how `streamText` and an abort
 * signal end. Bundled with `ModelRetryPlugin` as a user's worker bundles them.
 */
import { generateText, streamText } from 'ai';
import type { JSONObject } from '@ai-sdk/provider';
import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { closeStream, durableModel, workflowStream } from '../../workflows/ai-sdk/index.js';
import { callModel, MODEL_CALL_FAILED, registerModelCallQueries } from '../../workflows/index.js';
import type { ModelCallFailedDetails, ModelCallInput } from '../../workflows/index.js';
import type { AgentInput } from './bundle/ai-sdk-agent.js';

export * from './bundle/ai-sdk-agent.js';

export interface TextInput extends AgentInput {
  providerOptions?: Record<string, JSONObject>;
  headers?: Record<string, string>;
  maxRetries?: number;
  /** Sends the prompt with a PNG's bytes (`[1, 2, 3]`) after it, as a user's image part. */
  withImage?: boolean;
}

export interface TextOutput {
  text: string;
  /** What the AI SDK's telemetry names the model by (its `onStart` event). */
  provider?: string;
  modelId?: string;
  /** The AI SDK's result: the response's model id and the provider metadata's `modelRetry`. */
  responseModelId: string;
  calls: unknown;
}

/** `generateText` with provider options, headers and `maxRetries` as given. */
export async function durableTextWorkflow(input: TextInput): Promise<TextOutput> {
  let started: { provider: string; modelId: string } | undefined;
  const result = await generateText({
    model: durableModel(input.model, input.options),
    ...(input.withImage
      ? {
          messages: [
            {
              role: 'user' as const,
              content: [
                { type: 'text' as const, text: input.prompt },
                { type: 'image' as const, image: new Uint8Array([1, 2, 3]), mediaType: 'image/png' },
              ],
            },
          ],
        }
      : { prompt: input.prompt }),
    ...(input.providerOptions ? { providerOptions: input.providerOptions } : {}),
    ...(input.headers ? { headers: input.headers } : {}),
    ...(input.maxRetries !== undefined ? { maxRetries: input.maxRetries } : {}),
    onStart: (event) => {
      started = { provider: event.provider, modelId: event.modelId };
    },
  });
  return {
    text: result.text,
    ...started,
    responseModelId: result.response.modelId,
    calls: result.providerMetadata?.modelRetry,
  };
}

export interface StreamTextInput extends AgentInput {
  /** How the workflow reads the answer: `await result.text` alone, or `for await` over a stream first. */
  read: 'text' | 'textStream' | 'fullStream';
  headers?: Record<string, string>;
}

/** `streamText` read as `read` says, with no `onError`: a failure must reach the workflow as it is. */
export async function durableStreamTextWorkflow(
  input: StreamTextInput,
): Promise<{ text: string; deltas: number }> {
  workflowStream();
  const result = streamText({
    model: durableModel(input.model, input.options),
    prompt: input.prompt,
    ...(input.headers ? { headers: input.headers } : {}),
  });
  try {
    let deltas = 0;
    let streamed = '';
    if (input.read === 'textStream') {
      for await (const delta of result.textStream) {
        streamed += delta;
        deltas += 1;
      }
    } else if (input.read === 'fullStream') {
      for await (const part of result.fullStream) {
        if (part.type !== 'text-delta') continue;
        streamed += part.text;
        deltas += 1;
      }
    }
    const text = await result.text;
    if (input.read !== 'text' && streamed !== text)
      throw new Error(`streamed "${streamed}" but the text is "${text}"`);
    return { text, deltas };
  } finally {
    await closeStream();
  }
}

export interface AbortInput extends AgentInput {
  /** Aborts the request this long after it started. */
  abortAfterMs: number;
  via: 'generateText' | 'streamText';
}

/** A request given an abort signal the workflow aborts: what the request rejected with. */
export async function durableAbortWorkflow(
  input: AbortInput,
): Promise<{ text?: string; rejected?: unknown }> {
  const controller = new AbortController();
  // A cancelled run cancels the timer: caught, or the rejection would fail the workflow task.
  sleep(input.abortAfterMs).then(
    () => controller.abort('stopped by the workflow'),
    () => undefined,
  );
  const model = durableModel(input.model, input.options);
  try {
    if (input.via === 'generateText') {
      const result = await generateText({ model, prompt: input.prompt, abortSignal: controller.signal });
      return { text: result.text };
    }
    const result = streamText({ model, prompt: input.prompt, abortSignal: controller.signal });
    return { text: await result.text };
  } catch (error) {
    return { rejected: error instanceof Error ? `${error.name}: ${error.message}` : error };
  }
}

/**
 * `streamText` with an `onError`, whose failure the workflow catches: what `for await` over `textStream`,
 * `result.steps` and a bare `consumeStream()` gave, and how often `onError` was called.
 */
export async function durableStreamCaughtWorkflow(input: AgentInput): Promise<{
  textStream?: unknown;
  steps?: unknown;
  consumeStream: 'resolved' | 'rejected';
  onErrorCalls: number;
}> {
  let onErrorCalls = 0;
  const result = streamText({
    model: durableModel(input.model, input.options),
    prompt: input.prompt,
    onError: () => {
      onErrorCalls += 1;
    },
  });
  const typeOf = (error: unknown) => (error as { type?: string }).type ?? String(error);
  let textStream: unknown;
  try {
    for await (const _ of result.textStream) void _;
  } catch (error) {
    textStream = typeOf(error);
  }
  const steps = await result.steps.then(() => undefined, typeOf);
  const consumeStream = await result.consumeStream().then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );
  return { textStream, steps, consumeStream, onErrorCalls };
}

/**
 * `callModel` in a user's own workflow that catches its `ModelCallFailed` and goes on: it completes with the stop
 * reason it caught (its records are the `attempts` query's).
 */
export async function caughtCallWorkflow(input: ModelCallInput): Promise<{ stopReason?: string }> {
  registerModelCallQueries();
  try {
    await callModel(input);
    return {};
  } catch (error) {
    if (!(error instanceof ApplicationFailure) || error.type !== MODEL_CALL_FAILED) throw error;
    return { stopReason: (error.details?.[0] as ModelCallFailedDetails).stopReason };
  }
}

/** What one call of `callsInOneRunWorkflow` ended with: its text, or the failure it threw. */
export type CallEnd = { text: string } | { failure: string; message: string };

/**
 * `callModel` for each input in turn, in one run (a user's workflow that serves several tenants): what each call
 * ended with. A failure is caught, so that the calls after it still run.
 */
export async function callsInOneRunWorkflow(inputs: ModelCallInput[]): Promise<CallEnd[]> {
  const ends: CallEnd[] = [];
  for (const input of inputs) {
    try {
      ends.push({ text: (await callModel(input)).output.text });
    } catch (error) {
      if (!(error instanceof ApplicationFailure)) throw error;
      ends.push({ failure: error.type ?? '', message: error.message });
    }
  }
  return ends;
}
