import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import {
  bundleSuiteWorkflows,
  outcome,
  startSuiteWorker,
  streamOf,
  usageOf,
} from '../harness/temporal-suite.js';
import type { SuiteWorker } from '../harness/temporal-suite.js';
import type { StreamedResult } from '../harness/temporal-suite-workflows.js';

/**
 * Temporal's streaming tests of `@temporalio/ai-sdk` (contrib/ai-sdk/src/__tests__/test-ai-sdk-streaming.ts), which
 * run its streaming activity on a model yielding a scripted stream, re-expressed end to end on `durableModel`:
 * `streamText` in a workflow on the same scripted streams, the result it assembles, what a subscriber outside
 * reads, and how an error part ends the run. The one allowed difference: a stream error surfaces as model-retry's
 * `ModelCallFailed` carrying the provider's message, where Temporal's activity throws a retryable failure.
 *
 * Where the contract ("What a call carries") differs from Temporal's activity on purpose, the tests say so: no
 * request body is kept, response headers are kept by an allow-list, and raw provider chunks never reach the
 * stream signals.
 */
describe("Temporal's @temporalio/ai-sdk streaming suite on durableModel", () => {
  let w: SuiteWorker;
  beforeAll(async () => {
    w = await startSuiteWorker(await bundleSuiteWorkflows());
  });
  afterAll(async () => {
    await w?.stop();
  });

  const usage = usageOf();
  const timestamp = new Date('2026-01-01T00:00:00Z');
  const PARTS: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'test-feature' }] },
    { type: 'response-metadata', id: 'resp-1', modelId: 'test-model-id', timestamp },
    { type: 'text-start', id: 'txt-1' },
    { type: 'text-delta', id: 'txt-1', delta: 'Hello, ' },
    { type: 'text-delta', id: 'txt-1', delta: 'world!' },
    { type: 'text-end', id: 'txt-1' },
    { type: 'reasoning-start', id: 'rsn-1' },
    { type: 'reasoning-delta', id: 'rsn-1', delta: 'pondering' },
    { type: 'reasoning-end', id: 'rsn-1' },
    { type: 'tool-call', toolCallId: 'call-1', toolName: 'getWeather', input: '{"location":"Tokyo"}' },
    { type: 'raw', rawValue: { provider: 'specific' } },
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
  ];
  // Temporal's model answers `x-test-header`; an allow-listed one is added to see headers kept at all.
  const HEADERS = { 'x-test-header': 'yes', 'x-request-id': 'req-1' };

  /** Runs `streamPartsWorkflow` on `PARTS`, read by a subscriber outside from the start. */
  async function streamParts() {
    w.provider.script({ stream: () => streamOf(PARTS, HEADERS) });
    const handle = await w.start('streamPartsWorkflow', ['hi']);
    const items: CallStreamItem[] = [];
    const read = (async () => {
      for await (const item of subscribeCallStream(w.client, handle.workflowId, { pollCooldownMs: 20 }))
        items.push(item);
    })();
    const run = await outcome<StreamedResult>(handle);
    await read;
    // What the attempts answered, as history holds it (the payloads are plain JSON here: no codec).
    const { events } = await handle.fetchHistory();
    const answers = (events ?? [])
      .flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
      .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
    return { run, items, answers };
  }

  it('invokeModelStreaming publishes every part and assembles the final result: streamText on durableModel', async () => {
    const { run, items, answers } = await streamParts();
    expect(run.failure).toBeUndefined();
    const result = run.result!;
    expect(result.text).toBe('Hello, world!');
    expect(result.reasoningText).toBe('pondering');
    expect(result.content).toMatchObject([
      { type: 'text', text: 'Hello, world!' },
      { type: 'reasoning', text: 'pondering' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'getWeather', input: { location: 'Tokyo' } },
    ]);
    expect(result.toolCalls).toEqual([
      { toolCallId: 'call-1', toolName: 'getWeather', input: { location: 'Tokyo' } },
    ]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 20 });
    expect(result.warnings).toEqual([{ type: 'unsupported', feature: 'test-feature' }]);
    // Response metadata from the stream (headers: at the end).
    expect(result.response).toMatchObject({
      id: 'resp-1',
      modelId: 'test-model-id',
      timestamp: timestamp.toISOString(),
    });
    // The workflow's own fullStream had the parts, in order (inside the workflow they come when the attempt has
    // ended: a text part may come as one delta).
    const order = result.partTypes.filter(
      (t, i, all) => ['text-delta', 'reasoning-delta', 'tool-call', 'finish'].includes(t) && all[i - 1] !== t,
    );
    expect(order).toEqual(['text-delta', 'reasoning-delta', 'tool-call', 'finish']);
    // Outside, the text deltas each came once.
    const text = items.flatMap((i) => (i.kind === 'delta' ? [i.delta.text] : [])).join('');
    expect(text).toBe('Hello, world!');
    // With the model's response headers: the contract keeps an allow-list of them (`x-test-header` is not on it).
    // Temporal's `request.body` is not kept at all: "no request or response body".
    const inHistory = answers.some((a) => a.includes('"x-request-id":"req-1"'));
    expect(result.response.headers, `the attempt's answer in history has x-request-id: ${inHistory}`).toEqual(
      {
        'x-request-id': 'req-1',
      },
    );
  });

  it("subscribers outside get the AI SDK's stream parts (reasoning, tool calls, finish) each once, never a raw chunk", async () => {
    // Temporal publishes every part (raw included); the contract: "subscribers outside get the AI SDK's stream parts
    // (text, reasoning, tool input and tool calls, finish) as they come, each once", and "stream signals never
    // carry ... raw provider chunks".
    const { run, items } = await streamParts();
    expect(run.failure).toBeUndefined();
    const deltas = items.flatMap((i) => (i.kind === 'delta' ? [i.delta] : []));
    const seen = JSON.stringify(deltas);
    expect(deltas.filter((d) => d.text !== '').map((d) => d.text)).toEqual(['Hello, ', 'world!']);
    const parts = deltas.flatMap((d) => (d.part ? [d.part] : []));
    const ofType = (type: string) => parts.filter((p) => p.type === type);
    expect(ofType('reasoning-delta'), seen).toMatchObject([{ delta: 'pondering' }]);
    expect(ofType('tool-call'), seen).toMatchObject([
      { toolCallId: 'call-1', toolName: 'getWeather', input: '{"location":"Tokyo"}' },
    ]);
    expect(ofType('finish'), seen).toMatchObject([{ finishReason: { unified: 'stop' } }]);
    // Each part once, and no raw chunk.
    expect(new Set(parts.map((p) => JSON.stringify(p))).size).toBe(parts.length);
    expect(ofType('raw')).toEqual([]);
    expect(seen).not.toContain('specific');
  });

  /** How a run of `streamFailureWorkflow` on `parts` ends: its `ModelCallFailed`. */
  async function failedStream(parts: LanguageModelV4StreamPart[]) {
    const model = w.provider.script({ stream: () => streamOf(parts, {}) });
    const handle = await w.start('streamFailureWorkflow', ['hi']);
    const run = await outcome<string>(handle);
    expect(run.result).toBeUndefined();
    expect(run.failure).toBeInstanceOf(ApplicationFailure);
    const failure = run.failure as ApplicationFailure;
    expect(failure.type).toBe('ModelCallFailed');
    const details = failure.details?.[0] as ModelCallFailedDetails;
    // Each attempt met the same scripted stream: one attempt per doStream, each a body that broke off (or, had
    // its delta been published first, an interrupted stream), never a task failure retried forever.
    expect(details.attempts.length).toBe(model.doStreamCalls.length);
    for (const attempt of details.attempts) {
      expect(['ConnectionLost', 'StreamInterrupted']).toContain(attempt.failure?.class);
    }
    return { failure, details, model };
  }

  it('invokeModelStreaming throws when the stream emits an error and no finish part: ModelCallFailed with the message', async () => {
    const { failure, details, model } = await failedStream([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 'txt-1' },
      { type: 'text-delta', id: 'txt-1', delta: 'partial' },
      { type: 'error', error: 'connection reset' },
    ]);
    expect(failure.message).toMatch(/connection reset/);
    expect(model.doStreamCalls.length).toBeGreaterThanOrEqual(1);
    expect(details.attempts.at(-1)?.failure?.message).toMatch(/connection reset/);
  });

  it('invokeModelStreaming throws when the stream emits an error even if a finish part follows', async () => {
    const { failure, details } = await failedStream([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 'txt-1' },
      { type: 'text-delta', id: 'txt-1', delta: 'partial' },
      { type: 'text-end', id: 'txt-1' },
      { type: 'error', error: 'mid-stream provider failure' },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage },
    ]);
    expect(failure.message).toMatch(/mid-stream provider failure/);
    expect(failure.message).not.toMatch(/without (a|its) finish/);
    expect(details.attempts.at(-1)?.failure?.message).toMatch(/mid-stream provider failure/);
  });
});
