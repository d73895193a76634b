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
import type { AnswerContext, ProviderFormat, StreamEvent } from './format.js';
import type { OkStep } from './steps.js';

const DONE = 'data: [DONE]\n\n';

/** OpenAI's chat completions format (`POST /v1/chat/completions`), as OpenAI-compatible servers speak it. */
export const openaiFormat: ProviderFormat = {
  api: 'openai',

  success(step, ctx) {
    const calls = toolCallsOf(step, ctx.seq);
    const text = textOf(step);
    const reasoning = reasoningText(step, ctx);
    return {
      ...head(ctx, 'chat.completion'),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text === '' && calls.length > 0 ? null : text,
            ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
            ...(calls.length === 0
              ? {}
              : {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.json },
                  })),
                }),
          },
          logprobs: null,
          finish_reason: finishReason(step),
        },
      ],
      usage: usage(step),
    };
  },

  stream(step, ctx) {
    const chunk = (delta: unknown, extra: Record<string, unknown> = {}): string =>
      event({
        ...head(ctx, 'chat.completion.chunk'),
        choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
      });
    const events: StreamEvent[] = [{ text: chunk({ role: 'assistant', content: '' }), delta: false }];
    for (const piece of wordChunks(reasoningText(step, ctx))) {
      events.push({ text: chunk({ reasoning_content: piece }), delta: true });
    }
    for (const piece of textChunks(step)) events.push({ text: chunk({ content: piece }), delta: true });
    toolCallsOf(step, ctx.seq).forEach((c, index) => {
      const call = { index, id: c.id, type: 'function', function: { name: c.name, arguments: c.json } };
      events.push({ text: chunk({ tool_calls: [call] }), delta: true });
    });
    events.push({ text: chunk({}, { finish_reason: finishReason(step) }), delta: false });
    events.push({
      text: event({ ...head(ctx, 'chat.completion.chunk'), choices: [], usage: usage(step) }),
      delta: false,
    });
    events.push({ text: DONE, delta: false });
    return events;
  },

  error(status, fields) {
    return {
      error: {
        message: fields.message,
        type: fields.type ?? defaultType(status),
        param: null,
        code: fields.code ?? defaultCode(status),
      },
    };
  },

  // OpenAI reports an error that happens mid-stream as a chunk of its own: `data: {"error": {...}}`.
  streamError(fields) {
    return event({
      error: { message: fields.message, type: fields.type, param: null, code: fields.code ?? null },
    });
  },

  wrongShape(ctx) {
    return { ...head(ctx, 'chat.completion'), note: 'loopback provider: malformed on purpose (no choices)' };
  },

  lastAssistant(body) {
    return lastAssistantOf(listOf(body, 'messages'), (m) =>
      m.role === 'assistant' ? contentText(m.content, ['text']) : undefined,
    );
  },

  event,
  streamEnd: DONE,
};

function event(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function head(ctx: AnswerContext, object: string) {
  return {
    id: `chatcmpl-loopback-${ctx.seq}`,
    object,
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
  };
}

function usage(step: OkStep) {
  const { input, output, reasoning } = usageOf(step);
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
  };
}

/** The step's reasoning as OpenAI-compatible servers send it (`reasoning_content`, no signature): the texts joined. */
function reasoningText(step: OkStep, ctx: AnswerContext): string {
  return reasoningOf(step, ctx.seq)
    .filter((r) => r.redactedData === undefined)
    .map((r) => r.text)
    .join('');
}

function finishReason(step: OkStep): string {
  return step.finishReason ?? ((step.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

function defaultType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultCode(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 404) return 'model_not_found';
  if (status === 429) return 'rate_limit_exceeded';
  return null;
}
