import {
  contentText,
  lastAssistantOf,
  listOf,
  reasoningOf,
  textChunks,
  textOf,
  toolCallsOf,
  usageOf,
  wordChunks,
} from './format.js';
import type { AnswerContext, ProviderFormat, Reasoning, StreamEvent, ToolCall } from './format.js';
import { openaiFormat } from './openai.js';
import type { OkStep } from './steps.js';

/**
 * OpenAI's Responses API (`POST /v1/responses`): a Response object (`status`, `output` items,
 * `incomplete_details`, `usage`), or its named streaming events (`response.created` ... `response.completed`).
 * Errors have Chat Completions' body. The shared scripts' finish reasons become the Response's status:
 * `length` (or `max_output_tokens`) and `content_filter` end it `incomplete` with that reason.
 */
export const openaiResponsesFormat: ProviderFormat = {
  api: 'openai-responses',

  success(step, ctx) {
    return response(step, ctx, outputItems(step, ctx));
  },

  stream(step, ctx) {
    let seq = 0;
    const frame = (type: string, fields: Record<string, unknown>, delta = false): StreamEvent => ({
      text: event({ type, sequence_number: (seq += 1), ...fields }),
      delta,
    });
    const inProgress = { ...head(ctx), status: 'in_progress', output: [] };
    const events: StreamEvent[] = [
      frame('response.created', { response: inProgress }),
      frame('response.in_progress', { response: inProgress }),
    ];
    const text = textOf(step);
    const calls = toolCallsOf(step, ctx.seq);
    let index = 0;
    for (const r of reasoningsOf(step, ctx)) {
      const item = reasoningItem(r);
      const at = { item_id: item.id, output_index: index, summary_index: 0 };
      events.push(
        frame('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }),
      );
      if (r.text !== '') {
        events.push(
          frame('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }),
        );
        for (const piece of wordChunks(r.text)) {
          events.push(frame('response.reasoning_summary_text.delta', { ...at, delta: piece }, true));
        }
        events.push(
          frame('response.reasoning_summary_text.done', { ...at, text: r.text }),
          frame('response.reasoning_summary_part.done', {
            ...at,
            part: { type: 'summary_text', text: r.text },
          }),
        );
      }
      events.push(frame('response.output_item.done', { output_index: index, item }));
      index += 1;
    }
    if (text !== '' || calls.length === 0) {
      const item = { type: 'message', id: messageId(ctx), role: 'assistant' };
      const at = { item_id: item.id, output_index: index, content_index: 0 };
      events.push(
        frame('response.output_item.added', {
          output_index: index,
          item: { ...item, status: 'in_progress', content: [] },
        }),
        frame('response.content_part.added', {
          ...at,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
      for (const piece of textChunks(step)) {
        events.push(frame('response.output_text.delta', { ...at, delta: piece, logprobs: [] }, true));
      }
      events.push(
        frame('response.output_text.done', { ...at, text, logprobs: [] }),
        frame('response.output_item.done', { output_index: index, item: messageItem(ctx, text) }),
      );
      index += 1;
    }
    for (const call of calls) {
      const item = functionItem(call);
      events.push(
        frame('response.output_item.added', {
          output_index: index,
          item: { ...item, arguments: '', status: 'in_progress' },
        }),
        frame(
          'response.function_call_arguments.delta',
          { item_id: item.id, output_index: index, delta: call.json },
          true,
        ),
        frame('response.function_call_arguments.done', {
          item_id: item.id,
          output_index: index,
          arguments: call.json,
        }),
        frame('response.output_item.done', { output_index: index, item }),
      );
      index += 1;
    }
    const done = response(step, ctx, outputItems(step, ctx));
    events.push(
      frame(done.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: done }),
    );
    return events;
  },

  error: openaiFormat.error,

  // An `error` event (`{ type: 'error', code, message, param }`), or the response failing
  // (`response.failed` with `response.error`).
  streamError(fields, ctx) {
    const code = fields.code ?? fields.type;
    if (fields.event === 'response.failed') {
      const failed = { ...head(ctx), status: 'failed', output: [], error: { code, message: fields.message } };
      return event({ type: 'response.failed', sequence_number: 1000, response: failed });
    }
    return event({ type: 'error', sequence_number: 1000, code, message: fields.message, param: null });
  },

  wrongShape(ctx) {
    return { ...head(ctx), note: 'loopback provider: malformed on purpose (no output)' };
  },

  // An assistant message item of `input` (`type: 'message'` or none): its content a string or output_text parts.
  lastAssistant(body) {
    return lastAssistantOf(listOf(body, 'input'), (item) =>
      item.role === 'assistant' && (item.type === undefined || item.type === 'message')
        ? contentText(item.content, ['output_text', 'text'])
        : undefined,
    );
  },

  event,
  streamEnd: '',
};

/** The Responses API names each event; the name repeats the data's `type`. */
function event(value: unknown): string {
  const type =
    typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string'
      ? value.type
      : 'message';
  return `event: ${type}\ndata: ${JSON.stringify(value)}\n\n`;
}

function head(ctx: AnswerContext) {
  return {
    id: `resp_loopback_${ctx.seq}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: ctx.model,
  };
}

function messageId(ctx: AnswerContext): string {
  return `msg_loopback_${ctx.seq}`;
}

function messageItem(ctx: AnswerContext, text: string) {
  return {
    type: 'message',
    id: messageId(ctx),
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

function functionItem(call: ToolCall) {
  return {
    type: 'function_call',
    id: `fc_${call.id}`,
    call_id: call.id,
    name: call.name,
    arguments: call.json,
    status: 'completed',
  };
}

/**
 * A reasoning output item: the text as its one summary part, the signature as `encrypted_content` (what the API
 * sends when asked for `include: ['reasoning.encrypted_content']`).
 */
function reasoningItem(r: Reasoning) {
  return {
    type: 'reasoning',
    id: r.id,
    summary: r.text === '' ? [] : [{ type: 'summary_text', text: r.text }],
    ...(r.signature === undefined ? {} : { encrypted_content: r.signature }),
  };
}

/** The step's reasoning blocks this API has: all but Anthropic's redacted ones. */
function reasoningsOf(step: OkStep, ctx: AnswerContext): Reasoning[] {
  return reasoningOf(step, ctx.seq).filter((r) => r.redactedData === undefined);
}

function outputItems(step: OkStep, ctx: AnswerContext): unknown[] {
  const text = textOf(step);
  const calls = toolCallsOf(step, ctx.seq);
  return [
    ...reasoningsOf(step, ctx).map(reasoningItem),
    ...(text === '' ? [] : [messageItem(ctx, text)]),
    ...calls.map(functionItem),
  ];
}

/** The incomplete reason a step's finish reason stands for; none for a complete answer. */
function incompleteReason(step: OkStep): string | undefined {
  switch (step.finishReason) {
    case undefined:
    case 'stop':
    case 'tool_calls':
    case 'completed':
      return undefined;
    case 'length':
      return 'max_output_tokens';
    default:
      return step.finishReason;
  }
}

function response(step: OkStep, ctx: AnswerContext, output: unknown[]) {
  const reason = incompleteReason(step);
  const { input, output: out, reasoning } = usageOf(step);
  return {
    ...head(ctx),
    status: reason === undefined ? 'completed' : 'incomplete',
    incomplete_details: reason === undefined ? null : { reason },
    error: null,
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: out,
      output_tokens_details: { reasoning_tokens: reasoning ?? 0 },
      total_tokens: input + out,
    },
  };
}
