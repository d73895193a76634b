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
import type { AnswerContext, ProviderFormat, Reasoning, StreamEvent } from './format.js';
import type { OkStep } from './steps.js';

/** Anthropic's messages format (`POST /v1/messages`), including its named streaming events. */
export const anthropicFormat: ProviderFormat = {
  api: 'anthropic',

  success(step, ctx) {
    const { input, output } = usageOf(step);
    const text = textOf(step);
    const calls = toolCallsOf(step, ctx.seq);
    const content: unknown[] = reasoningOf(step, ctx.seq).map(thinkingBlock);
    if (text !== '' || calls.length === 0) content.push({ type: 'text', text });
    for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
    return {
      id: messageId(ctx),
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content,
      stop_reason: stopReason(step),
      stop_sequence: null,
      usage: { input_tokens: input, output_tokens: output },
    };
  },

  stream(step, ctx) {
    const { input, output } = usageOf(step);
    const frame = (value: Record<string, unknown>, delta = false): StreamEvent => ({
      text: event(value),
      delta,
    });
    const events: StreamEvent[] = [
      frame({
        type: 'message_start',
        message: {
          id: messageId(ctx),
          type: 'message',
          role: 'assistant',
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: input, output_tokens: 1 },
        },
      }),
      frame({ type: 'ping' }),
    ];
    let index = 0;
    for (const r of reasoningOf(step, ctx.seq)) {
      if (r.redactedData !== undefined) {
        events.push(frame({ type: 'content_block_start', index, content_block: thinkingBlock(r) }));
      } else {
        const block = { type: 'thinking', thinking: '', signature: '' };
        events.push(frame({ type: 'content_block_start', index, content_block: block }));
        for (const thinking of wordChunks(r.text)) {
          const delta = { type: 'thinking_delta', thinking };
          events.push(frame({ type: 'content_block_delta', index, delta }, true));
        }
        const delta = { type: 'signature_delta', signature: r.signature ?? '' };
        events.push(frame({ type: 'content_block_delta', index, delta }));
      }
      events.push(frame({ type: 'content_block_stop', index }));
      index += 1;
    }
    const calls = toolCallsOf(step, ctx.seq);
    if (textOf(step) !== '' || calls.length === 0) {
      events.push(frame({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const text of textChunks(step)) {
        events.push(frame({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, true));
      }
      events.push(frame({ type: 'content_block_stop', index }));
      index += 1;
    }
    for (const c of calls) {
      const block = { type: 'tool_use', id: c.id, name: c.name, input: {} };
      events.push(frame({ type: 'content_block_start', index, content_block: block }));
      const delta = { type: 'input_json_delta', partial_json: c.json };
      events.push(frame({ type: 'content_block_delta', index, delta }, true));
      events.push(frame({ type: 'content_block_stop', index }));
      index += 1;
    }
    events.push(
      frame({
        type: 'message_delta',
        delta: { stop_reason: stopReason(step), stop_sequence: null },
        usage: { output_tokens: output },
      }),
      frame({ type: 'message_stop' }),
    );
    return events;
  },

  error(status, fields) {
    return { type: 'error', error: { type: fields.type ?? defaultType(status), message: fields.message } };
  },

  // Anthropic's documented in-stream error: `event: error` with the same body as an HTTP error.
  streamError(fields) {
    return event({ type: 'error', error: { type: fields.type, message: fields.message } });
  },

  wrongShape(ctx) {
    return { id: messageId(ctx), type: 'message', model: ctx.model, note: 'loopback provider: no content' };
  },

  lastAssistant(body) {
    return lastAssistantOf(listOf(body, 'messages'), (m) =>
      m.role === 'assistant' ? contentText(m.content, ['text']) : undefined,
    );
  },

  event,
  streamEnd: '',
};

/** Anthropic names each event; the name repeats the data's `type`. */
function event(value: unknown): string {
  const type =
    typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string'
      ? value.type
      : 'message';
  return `event: ${type}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** A `thinking` block (its signature '' when the step gives none), or a `redacted_thinking` block. */
function thinkingBlock(r: Reasoning): Record<string, unknown> {
  if (r.redactedData !== undefined) return { type: 'redacted_thinking', data: r.redactedData };
  return { type: 'thinking', thinking: r.text, signature: r.signature ?? '' };
}

function messageId(ctx: AnswerContext): string {
  return `msg_loopback_${ctx.seq}`;
}

function stopReason(step: OkStep): string {
  return step.finishReason ?? ((step.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function defaultType(status: number): string {
  return TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}
