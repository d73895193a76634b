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
import type { AnswerContext, ErrorFields, ProviderFormat, StreamEvent, ToolCall } from './format.js';
import type { OkStep } from './steps.js';

/**
 * Gemini's generateContent format (`POST /v1beta/models/<model>:generateContent`, and
 * `:streamGenerateContent?alt=sse` for server-sent events of partial `GenerateContentResponse`s). The shared
 * fault scripts are rendered in Gemini's own terms: an error is `{ error: { code, message, status, details } }`
 * with a gRPC status name; a quota (`insufficient_quota`) gets a `QuotaFailure` detail, a step's `retryDelay` a
 * `RetryInfo`; finish reasons `content_filter` and `length` become `SAFETY` and `MAX_TOKENS`.
 */
export const googleFormat: ProviderFormat = {
  api: 'google',

  success(step, ctx) {
    if (step.blockReason !== undefined) {
      return { promptFeedback: { blockReason: step.blockReason }, usageMetadata: usage(step), ...head(ctx) };
    }
    const parts: unknown[] = thoughtsOf(step, ctx).map((r) => thoughtPart(r.text, r.signature));
    const text = textOf(step);
    if (text !== '') parts.push({ text });
    for (const c of toolCallsOf(step, ctx.seq)) parts.push(callPart(c));
    return {
      candidates: [{ content: { parts, role: 'model' }, finishReason: finishReason(step), index: 0 }],
      usageMetadata: usage(step),
      ...head(ctx),
    };
  },

  stream(step, ctx) {
    if (step.blockReason !== undefined) {
      return [{ text: event(googleFormat.success(step, ctx)), delta: false }];
    }
    const candidate = (parts: unknown[], extra: Record<string, unknown> = {}) =>
      event({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }], ...head(ctx) });
    const events: StreamEvent[] = [];
    // A thought streams as thought parts; its signature comes with the last of them.
    for (const r of thoughtsOf(step, ctx)) {
      const pieces = wordChunks(r.text);
      if (pieces.length === 0) pieces.push('');
      pieces.forEach((piece, i) => {
        const last = i === pieces.length - 1;
        events.push({ text: candidate([thoughtPart(piece, last ? r.signature : undefined)]), delta: true });
      });
    }
    for (const text of textChunks(step)) events.push({ text: candidate([{ text }]), delta: true });
    for (const c of toolCallsOf(step, ctx.seq)) events.push({ text: candidate([callPart(c)]), delta: true });
    events.push({
      text: event({
        candidates: [{ finishReason: finishReason(step), index: 0 }],
        usageMetadata: usage(step),
        ...head(ctx),
      }),
      delta: false,
    });
    return events;
  },

  error(status, fields) {
    return { error: errorBody(status, fields) };
  },

  // Gemini reports an error that happens mid-stream as an event of its own: `data: {"error": {...}}`.
  streamError(fields) {
    const name = statusName(undefined, fields.type, fields.code);
    return event({ error: errorBody(HTTP_OF[name] ?? 500, { ...fields, type: name }) });
  },

  wrongShape(ctx) {
    return { ...head(ctx), note: 'loopback provider: malformed on purpose (no candidates)' };
  },

  // A model turn's text is its parts' texts, thoughts (`thought: true`) left out.
  lastAssistant(body) {
    return lastAssistantOf(listOf(body, 'contents'), (c) =>
      c.role === 'model' && Array.isArray(c.parts)
        ? contentText(
            c.parts.filter(
              (p: unknown) => !(typeof p === 'object' && p !== null && 'thought' in p && p.thought === true),
            ),
            ['text'],
          )
        : undefined,
    );
  },

  event,
  streamEnd: '',
};

function event(value: unknown): string {
  return `data: ${JSON.stringify(value)}\r\n\r\n`;
}

function head(ctx: AnswerContext) {
  return { modelVersion: ctx.model, responseId: `gemini-loopback-${ctx.seq}` };
}

function usage(step: OkStep) {
  const { input, output, reasoning } = usageOf(step);
  // Gemini counts thoughts apart from the candidates: the step's output tokens are both together.
  return {
    promptTokenCount: input,
    candidatesTokenCount: output - Math.min(output, reasoning ?? 0),
    totalTokenCount: input + output,
    ...(reasoning === undefined ? {} : { thoughtsTokenCount: reasoning }),
  };
}

/** The step's reasoning blocks Gemini has: all but Anthropic's redacted ones. */
function thoughtsOf(step: OkStep, ctx: AnswerContext) {
  return reasoningOf(step, ctx.seq).filter((r) => r.redactedData === undefined);
}

/** A thought part (`thought: true`), with its `thoughtSignature` when given. */
function thoughtPart(text: string, signature: string | undefined) {
  return { text, thought: true, ...(signature === undefined ? {} : { thoughtSignature: signature }) };
}

/** A `functionCall` part, with its `thoughtSignature` when the step gives one. */
function callPart(c: ToolCall) {
  return {
    functionCall: { name: c.name, args: c.input },
    ...(c.signature === undefined ? {} : { thoughtSignature: c.signature }),
  };
}

/** The shared scripts' finish reasons in Gemini's words; Gemini's own (`RECITATION`, ...) are sent as they are. */
function finishReason(step: OkStep): string {
  switch (step.finishReason) {
    case undefined:
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'content_filter':
      return 'SAFETY';
    case 'length':
      return 'MAX_TOKENS';
    default:
      return step.finishReason;
  }
}

const QUOTA = new Set(['insufficient_quota', 'quota_exceeded']);

function errorBody(status: number, fields: ErrorFields) {
  const details: unknown[] = [];
  if (QUOTA.has(fields.code ?? '') || QUOTA.has(fields.type ?? '')) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        { quotaMetric: 'generativelanguage.googleapis.com/loopback_requests', quotaId: 'Loopback' },
      ],
    });
  }
  if (fields.retryDelay !== undefined) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: fields.retryDelay });
  }
  return {
    code: status,
    message: fields.message,
    status: statusName(status, fields.type, fields.code),
    ...(details.length === 0 ? {} : { details }),
  };
}

const HTTP_OF: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Other families' error types, as the gRPC status Gemini would state. */
const NAME_OF_TYPE: Record<string, string> = {
  overloaded_error: 'UNAVAILABLE',
  service_unavailable: 'UNAVAILABLE',
  server_error: 'INTERNAL',
  api_error: 'INTERNAL',
  rate_limit_error: 'RESOURCE_EXHAUSTED',
  rate_limit_exceeded: 'RESOURCE_EXHAUSTED',
  insufficient_quota: 'RESOURCE_EXHAUSTED',
  invalid_request_error: 'INVALID_ARGUMENT',
};

/** The status name: a Gemini name given as the type, else the type's or code's equivalent, else by HTTP status. */
function statusName(status: number | undefined, type?: string, code?: string): string {
  if (type !== undefined && /^[A-Z_]+$/.test(type)) return type;
  const named = NAME_OF_TYPE[type ?? ''] ?? NAME_OF_TYPE[code ?? ''];
  if (named !== undefined) return named;
  const byStatus = Object.entries(HTTP_OF).find(([, s]) => s === status)?.[0];
  return byStatus ?? (status !== undefined && status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL');
}
