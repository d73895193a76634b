/** Shorthands for the loopback provider's common steps: `ok('hi')`, `fail(429)`, `cutMidBody()`, `always(...)`. */
import type {
  ContinueMode,
  CutStep,
  DropStep,
  EchoAuthStep,
  ErrorStep,
  HangStep,
  MalformedShape,
  MalformedStep,
  OkStep,
  Step,
  StreamErrorStep,
} from './steps.js';

type Options<S extends Step, K extends keyof S = never> = Omit<S, 'kind' | K>;

/** A successful answer with `text` (`'ok'` unless `text` or `options.chunks` is given). */
export function ok(text?: string, options: Options<OkStep, 'text'> = {}): OkStep {
  const body = text ?? (options.chunks === undefined ? 'ok' : undefined);
  return { kind: 'ok', ...(body === undefined ? {} : { text: body }), ...options };
}

/**
 * A step that continues `text` from what the request delivered (or answers it whole when nothing was):
 * `continuing('The quick brown fox', 'repeat-lot', { cutAfterChunks: 2 })`.
 */
export function continuing(
  text: string,
  mode: ContinueMode = 'exact',
  options: Options<OkStep, 'text' | 'chunks' | 'continues'> & { repeatChars?: number } = {},
): OkStep {
  const { repeatChars, ...rest } = options;
  const repeat = repeatChars === undefined ? {} : { repeatChars };
  return { kind: 'ok', ...rest, continues: { text, mode, ...repeat } };
}

/** A successful answer that calls one tool. */
export function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  options: Options<OkStep, 'toolCalls'> = {},
): OkStep {
  return { kind: 'ok', ...options, toolCalls: [{ name, arguments: args }] };
}

/** An HTTP error in the provider's format: `fail(429, { headers: { 'retry-after': '1' } })`. */
export function fail(status: number, options: Options<ErrorStep, 'status'> = {}): ErrorStep {
  return { kind: 'error', status, ...options };
}

/** OpenAI's 429 for an account out of credit (`insufficient_quota`). */
export function quotaExhausted(options: Options<ErrorStep, 'status'> = {}): ErrorStep {
  return fail(429, {
    type: 'insufficient_quota',
    code: 'insufficient_quota',
    message: 'You exceeded your current quota, please check your plan and billing details.',
    ...options,
  });
}

/** A 429 rate limit, with a `retry-after` in seconds when given. */
export function rateLimited(
  retryAfterSeconds?: number,
  options: Options<ErrorStep, 'status'> = {},
): ErrorStep {
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
  return fail(429, { code: 'rate_limit_exceeded', ...options, headers: { ...headers, ...options.headers } });
}

/** OpenAI's 400 `context_length_exceeded`. */
export function contextTooLong(options: Options<ErrorStep, 'status'> = {}): ErrorStep {
  return fail(400, {
    code: 'context_length_exceeded',
    message: "This model's maximum context length is 8192 tokens. Please reduce the length of the messages.",
    ...options,
  });
}

/** Anthropic's 529 `overloaded_error`. */
export function overloaded(options: Options<ErrorStep, 'status'> = {}): ErrorStep {
  return fail(529, { type: 'overloaded_error', message: 'Overloaded', ...options });
}

/** A 200 with an unusable body. */
export function malformed(
  shape: MalformedShape = 'invalid-json',
  options: Options<MalformedStep, 'shape'> = {},
) {
  return { kind: 'malformed', shape, ...options } satisfies MalformedStep;
}

/** The provider's error event inside a streamed answer: `streamError('overloaded_error')`. */
export function streamError(type: string, options: Options<StreamErrorStep, 'type'> = {}): StreamErrorStep {
  return { kind: 'stream-error', type, ...options };
}

/** Destroy the connection before answering. */
export function dropBeforeResponse(options: Options<DropStep> = {}): DropStep {
  return { kind: 'drop', ...options };
}

/** Send headers and part of the body, then destroy the connection. */
export function cutMidBody(fraction = 0.5, options: Options<CutStep, 'fraction'> = {}): CutStep {
  return { kind: 'cut', fraction, ...options };
}

/** Echo the received credentials into an error message (401 unless told). */
export function echoAuth(status = 401, options: Options<EchoAuthStep, 'status'> = {}): EchoAuthStep {
  return { kind: 'echo-auth', status, ...options };
}

/** Never answer. */
export function hang(options: Options<HangStep> = {}): HangStep {
  return { kind: 'hang', ...options };
}

/** `step`, after waiting `ms` before the headers. */
export function slow<S extends Step>(ms: number, step: S): S {
  return { ...step, delayMs: ms };
}

/** `step`, served to every further request for the model. */
export function always<S extends Step>(step: S): S {
  return { ...step, repeat: true };
}

/** A short name of a step for messages: `error 502`, `ok "hello"`. */
export function describeStep(step: Step): string {
  const tail = step.repeat ? ' (repeat)' : '';
  switch (step.kind) {
    case 'ok':
      if (step.continues !== undefined) {
        const text = JSON.stringify(step.continues.text.slice(0, 30));
        return `ok continues ${text} (${step.continues.mode ?? 'exact'})${tail}`;
      }
      return `ok ${JSON.stringify((step.text ?? '').slice(0, 30))}${tail}`;
    case 'error':
      return `error ${step.status}${tail}`;
    case 'malformed':
      return `malformed ${step.shape ?? 'invalid-json'}${tail}`;
    case 'stream-error':
      return `stream-error ${step.type}${tail}`;
    default:
      return `${step.kind}${tail}`;
  }
}
