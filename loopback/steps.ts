/**
 * Script steps of the loopback provider: what it does with one request.
 *
 * A step is plain JSON (a tagged union on `kind`), so a script can come from code, from a JSON file or
 * through the control endpoint. The builders in `step-builders.ts` are shorthands for the common cases.
 */

/** Fields that every step may carry. */
export interface StepBase {
  /** Wait this long (ms) before sending anything, headers included. Ends early if the client goes away. */
  delayMs?: number;
  /** Serve this step to every further request for the model instead of consuming it once. Must be last. */
  repeat?: boolean;
  /** Extra response headers (e.g. `retry-after`, `retry-after-ms`, `x-should-retry`). */
  headers?: Record<string, string>;
}

/** A tool call in a successful answer. `arguments` is sent as a JSON string (OpenAI) or object (Anthropic). */
export interface ToolCallSpec {
  /** @default `call_<n>` */
  id?: string;
  name: string;
  /** @default {} */
  arguments?: string | Record<string, unknown>;
  /** Gemini only: the `thoughtSignature` of the `functionCall` part (Gemini 3 signs its calls). Others ignore it. */
  signature?: string;
}

/**
 * A reasoning block of an answer, sent before its text and tool calls, in each family's own shape: Anthropic a
 * `thinking` block (`signature`; `redactedData` makes it a `redacted_thinking` block), OpenAI Responses a
 * `reasoning` output item (`id`, the text as its summary, `signature` as `encrypted_content`), Gemini a thought
 * part (`thought: true`, `signature` as `thoughtSignature`), OpenAI chat completions the message's
 * `reasoning_content` (no signature there). Streamed as each family streams reasoning.
 */
export interface ReasoningSpec {
  /** The thought (Responses: the summary text). @default '' */
  text?: string;
  /**
   * Anthropic's `signature` (sent as '' when absent: Anthropic's thinking block always has one), Responses'
   * `encrypted_content`, Gemini's `thoughtSignature`. Ignored by chat completions.
   */
  signature?: string;
  /** Anthropic only: a `redacted_thinking` block with this `data`. Other families leave such a block out. */
  redactedData?: string;
  /** Responses only: the reasoning item's id. @default `rs_loopback_<seq>_<i>` */
  id?: string;
}

/** A successful answer; streamed as server-sent events when the request says `stream: true`. */
export interface OkStep extends StepBase {
  kind: 'ok';
  /** @default the `chunks` joined, else '' */
  text?: string;
  /** The text deltas of a streamed answer. @default the text split into words (spaces kept) */
  chunks?: string[];
  toolCalls?: ToolCallSpec[];
  /** Reasoning before the text and tool calls: one block or several, in order. Streamed deltas of it count as deltas. */
  reasoning?: ReasoningSpec | ReasoningSpec[];
  /** Sent verbatim. @default 'stop' / 'end_turn', or 'tool_calls' / 'tool_use' when there are tool calls */
  finishReason?: string;
  /**
   * @default inputTokens 10, outputTokens ceil(text length / 4) at least 1. `reasoningTokens` (part of the output
   * tokens) is reported where the family has a field for it (Responses, Gemini, chat completions).
   */
  usage?: { inputTokens?: number; outputTokens?: number; reasoningTokens?: number };
  /** Pause (ms) before each streamed delta. */
  chunkDelayMs?: number;
  /** Streaming only: send this many deltas (after the provider's preamble events), then drop the connection. */
  cutAfterChunks?: number;
  /**
   * With `cutAfterChunks`: the stream stalls this long (ms) after its last delta before the connection drops, as a
   * stream that hangs and then breaks does (a client then has handled what it got). @default 0
   */
  cutPauseMs?: number;
  /**
   * Streaming only: send this many deltas, then end the response cleanly with no finish event (no finish chunk
   * and no `[DONE]`; no `message_delta` and no `message_stop`), as a proxy that closes a stream early does.
   */
  endAfterChunks?: number;
  /**
   * Gemini only: the prompt was blocked (`promptFeedback.blockReason`, e.g. `SAFETY`): no candidates at all.
   * Other formats ignore it.
   */
  blockReason?: string;
  /**
   * Answer as a model asked to continue a partial answer would: `text` is the whole answer the model means. When
   * the request carries a delivered text (the text of its last assistant message: a prefill when that message is
   * the last one, an instruction to continue when a user message follows it), the step answers what comes after
   * it in `text`, bent by `mode`; without one it answers `text` whole, so the same step serves the first attempt
   * (with `cutAfterChunks` and the rest). Replaces `text` and `chunks` (the answer is streamed word by word).
   */
  continues?: ContinuesSpec;
}

/**
 * How a continuation answers (the adversarial ones are for tests and benchmarks):
 * - `exact`: the rest of the text after the delivered text, nothing else;
 * - `repeat-little`: first repeats the last `repeatChars` (default 8, under 20) delivered characters, then the rest;
 * - `repeat-lot`: the same with `repeatChars` of at least 20 (default 40);
 * - `restart`: the whole text again from its beginning;
 * - `preamble`: `CONTINUE_PREAMBLE`, then the rest;
 * - `nothing`: an empty answer that finishes normally (the model thinks the delivered text was whole).
 */
export const CONTINUE_MODES = [
  'exact',
  'repeat-little',
  'repeat-lot',
  'restart',
  'preamble',
  'nothing',
] as const;
export type ContinueMode = (typeof CONTINUE_MODES)[number];

/** What the `preamble` mode says before the rest of the text. */
export const CONTINUE_PREAMBLE = 'Sure, continuing from where I stopped: ';

/** The repeated characters of `repeat-little` and `repeat-lot` when the step does not say (at most the delivered text). */
export const CONTINUE_REPEAT_DEFAULTS = { 'repeat-little': 8, 'repeat-lot': 40 } as const;

/** The answer an `ok` step continues (see `OkStep.continues`). */
export interface ContinuesSpec {
  /** The whole answer the model means. */
  text: string;
  /** @default 'exact' */
  mode?: ContinueMode;
  /** `repeat-little` (1-19, default 8) and `repeat-lot` (at least 20, default 40): characters repeated. */
  repeatChars?: number;
}

/**
 * A streamed answer (status 200) that reports the provider's error event inside the stream after `afterChunks`
 * deltas: OpenAI's `data: {"error": {...}}` chunk, Anthropic's `event: error`. A request that is not streamed
 * gets a 400 saying the step needs one.
 */
export interface StreamErrorStep extends StepBase {
  kind: 'stream-error';
  /** The error's type (Anthropic `overloaded_error`, `rate_limit_error`; OpenAI `server_error`). */
  type: string;
  /** OpenAI `error.code`. Not sent to Anthropic clients. */
  code?: string;
  /** @default a message naming the type */
  message?: string;
  /** Deltas of `text` sent before the error. @default 0 */
  afterChunks?: number;
  /** @default 'this answer breaks off with an error' */
  text?: string;
  /** Responses API only: the event that carries the error, `error` (default) or `response.failed`. */
  event?: 'error' | 'response.failed';
}

/** An HTTP error with a body in the provider's own error format. */
export interface ErrorStep extends StepBase {
  kind: 'error';
  status: number;
  /** Error type (OpenAI `error.type`, Anthropic `error.type`). @default derived from the status */
  type?: string;
  /** OpenAI `error.code` (e.g. `insufficient_quota`, `context_length_exceeded`). Not sent to Anthropic clients. */
  code?: string;
  /** @default a message naming the status */
  message?: string;
  /** Replaces the whole body: a string is sent as is, anything else as JSON. */
  body?: unknown;
  /**
   * A retry delay stated in the error body (Gemini's `RetryInfo.retryDelay`, e.g. "30s"), for the formats that
   * have one; the others ignore it (a `retry-after` header goes in `headers`).
   */
  retryDelay?: string;
}

/**
 * An error whose message repeats the received `Authorization` (or `x-api-key`, or Gemini's `x-goog-api-key`)
 * header: for scrubbing tests.
 */
export interface EchoAuthStep extends StepBase {
  kind: 'echo-auth';
  /** @default 401 */
  status?: number;
  /**
   * Echo the credentials everywhere a careless provider or proxy might: the message (the bare key, the header as
   * received and the whole request body), the error's `code` and `type`, and the response headers
   * `x-echoed-authorization` and `x-echoed-key`. @default false: the message `invalid api key: <header>` only
   */
  everywhere?: boolean;
}

/** A 200 whose body is unusable. */
export interface MalformedStep extends StepBase {
  kind: 'malformed';
  /** @default 'invalid-json' */
  shape?: MalformedShape;
  /** Replaces the body (sent with status 200 and `contentType`). */
  body?: string;
  /** @default 'application/json' (or 'text/event-stream' for streamed requests) */
  contentType?: string;
}

export const MALFORMED_SHAPES = ['invalid-json', 'wrong-shape', 'empty'] as const;
/** `invalid-json`: not JSON; `wrong-shape`: JSON without choices/content; `empty`: no body at all. */
export type MalformedShape = (typeof MALFORMED_SHAPES)[number];

/** Destroy the connection before any response byte is sent. */
export interface DropStep extends StepBase {
  kind: 'drop';
}

/** Send the headers and part of a successful body, then destroy the connection. */
export interface CutStep extends StepBase {
  kind: 'cut';
  /** Share of the body's bytes sent before the cut, in (0, 1). @default 0.5 */
  fraction?: number;
  /** Text of the answer that gets cut. @default 'this answer will be cut off in the middle' */
  text?: string;
}

/** Never answer; the request ends when the client gives up (or the server closes). */
export interface HangStep extends StepBase {
  kind: 'hang';
}

/** What the loopback provider does with one request. */
export type Step =
  OkStep | ErrorStep | EchoAuthStep | MalformedStep | DropStep | CutStep | HangStep | StreamErrorStep;
export type StepKind = Step['kind'];
