import { defaultPayloadConverter } from '@temporalio/common';
import type { PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { decodeTolerant } from '../../../client/rerun-fetch.js';
import { recordedRequests } from '../../../client/rerun-requests.js';
import type { ModelRequestInput, ModelRequestResult } from '../../../common/attempt.js';
import { rerunCallInput } from '../../../common/rerun-call.js';
import type { WireRequest } from '../../../common/request.js';
import { checkCallInput } from '../../../common/call-input/call-input.js';

type Event = temporal.api.history.v1.IHistoryEvent;

const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
const T0 = Date.parse('2026-12-01T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** A conversation with every kind of part and option a request carries, in wire form. */
const WHOLE: WireRequest = {
  spec: 1,
  prompt: [
    { role: 'system', content: 'Be exact.' },
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'What is in this picture?',
          providerOptions: { anthropic: { cacheControl: 'x' } },
        },
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } },
        {
          type: 'file',
          mediaType: 'application/pdf',
          data: { type: 'url', url: 'https://example.com/a.pdf' },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Looking.', providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'tool-call', toolCallId: 't1', toolName: 'zoom', input: { factor: 2 } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 't1', toolName: 'zoom', output: { type: 'text', value: 'ok' } },
      ],
    },
  ],
  tools: [
    {
      type: 'function',
      name: 'zoom',
      description: 'Zoom in',
      inputSchema: { type: 'object', properties: {} },
    },
  ],
  toolChoice: { type: 'auto' },
  temperature: 0.2,
  maxOutputTokens: 100,
  stopSequences: ['END'],
  seed: 7,
  providerOptions: { openai: { reasoningEffort: 'low' } },
  headers: { 'x-team': 'search' },
} as WireRequest;

describe('a recorded request as a new call', () => {
  it('is sent exactly as recorded: the call rebuilds the very same request from it', () => {
    const input = rerunCallInput({ request: WHOLE }, 'claude:other');
    const checked = checkCallInput(input, { allowHeaders: 'any' });
    expect(checked.request).toEqual(WHOLE);
    expect(checked.backends).toEqual(['claude:other']);
  });

  it('keeps a JSON answer format and a structured output, and takes the rerun plan and budget', () => {
    const request = {
      spec: 1,
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'A city?' }] }],
      responseFormat: { type: 'json' },
    } as WireRequest;
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    const input = rerunCallInput({ request, output: { schema } }, 'local:m', {
      retry: { waits: [10] },
      budget: { maxCostUsd: 0.5 },
    });
    expect(input).toMatchObject({ output: { schema }, retry: { waits: [10] }, budget: { maxCostUsd: 0.5 } });
    expect(checkCallInput({ ...input, output: undefined }).request).toEqual(request);
  });
});

/** An attempt's scheduled event, its result or failure, for call `callId`. */
function attempt(
  id: number,
  callId: string,
  n: number,
  request: WireRequest,
  extra: Partial<ModelRequestInput> = {},
): Event {
  const input: ModelRequestInput = {
    workflowId: 'wf',
    callId,
    attempt: n,
    modelCallId: `${callId}.${n}`,
    backend: 0,
    model: 'local:orig',
    request,
    timeoutMs: 1000,
    ...extra,
  };
  return {
    eventId: id,
    activityTaskScheduledEventAttributes: {
      activityId: `${callId}.${n}`,
      activityType: { name: 'modelRequest' },
      input: payloads(input),
    },
  } as unknown as Event;
}

function answered(id: number, scheduled: number, result: Partial<ModelRequestResult>): Event {
  const whole: ModelRequestResult = {
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    startedAt: at(0),
    endedAt: at(500),
    ...result,
  };
  return {
    eventId: id,
    activityTaskCompletedEventAttributes: { scheduledEventId: scheduled, result: payloads(whole) },
  } as unknown as Event;
}

function failed(id: number, scheduled: number, type: string): Event {
  return {
    eventId: id,
    activityTaskFailedEventAttributes: {
      scheduledEventId: scheduled,
      failure: {
        message: 'bad',
        applicationFailureInfo: {
          type,
          details: payloads({
            class: type,
            message: 'bad',
            startedAt: at(0),
            endedAt: at(100),
            finishReason: 'stop',
          }),
        },
      },
    },
  } as unknown as Event;
}

const started = (type: string): Event =>
  ({
    eventId: 1,
    workflowExecutionStartedEventAttributes: {
      workflowType: { name: type },
      originalExecutionRunId: 'run-1',
    },
  }) as unknown as Event;

const ask = (text: string): WireRequest =>
  ({ spec: 1, prompt: [{ role: 'user', content: [{ type: 'text', text }] }] }) as WireRequest;

describe("a workflow's recorded requests", () => {
  it("are each call's first attempt's: not a repair's, whose conversation carries the corrections", () => {
    const first = ask('A city as JSON.');
    const repaired = {
      ...first,
      prompt: [...first.prompt, { role: 'user', content: [{ type: 'text', text: 'Fix: /city missing' }] }],
    } as WireRequest;
    const events = [
      started('modelCallWorkflow'),
      attempt(5, 'c1', 1, first, { output: { schema: { type: 'object' } } }),
      failed(7, 5, 'SchemaMismatch'),
      attempt(9, 'c1', 2, repaired, { after: { action: 'repair', retryInMs: 0 } }),
      answered(11, 9, { text: '{"city":"Oslo"}', usage: { inputTokens: 30, outputTokens: 5 } }),
    ];
    const { requests, skipped } = recordedRequests({ workflowId: 'wf', histories: [{ events }] });
    expect(skipped).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.request).toEqual(first);
    expect(requests[0]?.output).toEqual({ schema: { type: 'object' } });
    expect(requests[0]?.source).toEqual({ workflowId: 'wf', runId: 'run-1', callId: 'c1' });
    expect(requests[0]?.original).toMatchObject({
      model: 'local:orig',
      outcome: 'succeeded',
      text: '{"city":"Oslo"}',
      usage: { inputTokens: 30, outputTokens: 5 },
    });
  });

  it("are an agent turn's steps, each with its number; a continuation's answer is the whole text", () => {
    const events = [
      started('agentTurnWorkflow'),
      attempt(5, 'c1', 1, ask('Add 1 and 1.')),
      answered(6, 5, {
        toolCalls: [{ id: 'a', name: 'calculator', args: '{"expression":"1+1"}' }],
        finishReason: 'tool-calls',
      }),
      attempt(9, 'c2', 1, ask('Add 1 and 1, then say it.')),
      failed(10, 9, 'StreamInterrupted'),
      attempt(12, 'c2', 2, ask('Add 1 and 1, then say it.'), {
        continuation: { text: 'The answer ', continues: 'c2.1' },
      }),
      answered(13, 12, { text: 'is 2.', continuation: { form: 'prefill' } }),
    ];
    const { requests } = recordedRequests({ workflowId: 'wf', histories: [{ events }] });
    expect(requests.map((r) => [r.source.callId, r.source.step, r.original.text])).toEqual([
      ['c1', 1, ''],
      ['c2', 2, 'The answer is 2.'],
    ]);
    expect(requests[0]?.original.toolCalls).toEqual([
      { id: 'a', name: 'calculator', args: '{"expression":"1+1"}' },
    ]);
    expect(requests[1]?.request).toEqual(ask('Add 1 and 1, then say it.'));
  });

  it('skip, with why, a request that cannot be read, an embedding and a call still running', () => {
    const embed = { spec: 1, prompt: [], embed: { values: ['a'] } } as WireRequest;
    const events = [
      started('myWorkflow'),
      attempt(5, 'c1', 1, ask('lost')),
      answered(6, 5, { text: 'x' }),
      attempt(8, 'c2', 1, embed),
      answered(9, 8, { embeddings: ['AAAA'] }),
      attempt(11, 'c3', 1, ask('still going')),
    ];
    const undecodable = new Map([['run-1/5', 'a payload refers to "x", which is not in the payload store']]);
    const { requests, skipped } = recordedRequests({
      workflowId: 'wf',
      histories: [{ events }],
      undecodable,
    });
    expect(requests).toEqual([]);
    expect(skipped.map((s) => [s.source.callId, s.reason])).toEqual([
      [
        'c1',
        'its recorded request cannot be read: a payload refers to "x", which is not in the payload store',
      ],
      ['c2', 'an embedding call: a rerun compares answers to conversations, not vectors'],
      ['c3', 'the call has not ended: rerun it once it has'],
    ]);
  });

  it("a failed call is compared too: its last failure class, and the run's stop reason for its last call", () => {
    const events = [
      started('modelCallWorkflow'),
      attempt(5, 'c1', 1, ask('hi')),
      failed(6, 5, 'ContentFiltered'),
      {
        eventId: 8,
        workflowExecutionFailedEventAttributes: {
          failure: {
            message: 'stopped',
            applicationFailureInfo: {
              type: 'ModelCallFailed',
              details: payloads({ callId: 'c1', stopReason: 'non-retryable', attemptCount: 1, attempts: [] }),
            },
          },
        },
      } as unknown as Event,
    ];
    const { requests } = recordedRequests({ workflowId: 'wf', histories: [{ events }] });
    expect(requests[0]?.original).toMatchObject({
      outcome: 'failed',
      text: '',
      stopReason: 'non-retryable',
      failureClass: 'ContentFiltered',
      finishReason: 'stop',
      latencyMs: 100,
    });
  });
});

describe('a payload the codecs cannot read', () => {
  it('is noted with a bounded, scrubbed message: a key in the codec error never reaches the rerun', async () => {
    const key = 'sk-proj-abcdefghijklmnop1234';
    const codec: PayloadCodec = {
      encode: async (payloads) => payloads,
      decode: async () => {
        throw new Error(`cannot decrypt with Authorization: Bearer ${key}; ${'detail '.repeat(200)}`);
      },
    };
    const event = {
      eventId: 5,
      activityTaskScheduledEventAttributes: {
        activityId: 'c1.1',
        activityType: { name: 'modelRequest' },
        input: { payloads: [defaultPayloadConverter.toPayload({ a: 1 })] },
      },
    };
    const undecodable = new Map<string, string>();
    await decodeTolerant({ events: [event] } as never, [codec], undecodable);
    const [message] = [...undecodable.values()];
    expect(message).toBeDefined();
    expect(message).not.toContain(key);
    expect(message?.length).toBeLessThanOrEqual(300);
  });
});
