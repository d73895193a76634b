/**
 * What crosses the boundary between the model-call workflow and its attempt activity. Plain JSON only: every
 * value here is written into the workflow's event history, so nothing secret may ever be part of it (keys
 * stay in the worker's provider registry).
 */
import type { Action, FailureClass } from '../policy/index.js';
import type { SearchAttributesReady } from './search-attribute-activity.js';
import type { WireContent, WireRequest } from './request.js';

/** A tool call the model asked for. `args` is the JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  args: string;
}

/** One message of a conversation, provider-neutral. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A tool the model may call: name, description and JSON Schema of its input. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A tool in the AI SDK's record shape, keyed by its name (`tools: { weather: { description, inputSchema } }`, as
 * `generateText` takes them). A call accepts it and converts it to `ToolDefinition`s before anything starts;
 * `inputSchema` may be a JSON Schema, the AI SDK's `jsonSchema()` / `zodSchema()`, or a Standard JSON Schema
 * (zod 4.2 and later). It has no `execute`: a call returns the model's tool calls and runs no tool.
 */
export interface ToolSetEntry {
  /** A string; the AI SDK's description computed from a context is refused (compute it before the call). */
  description?: string | ((options: never) => string);
  inputSchema: unknown;
}

/** Tools in the AI SDK's record shape: name -> tool. */
export type ToolSet = Record<string, ToolSetEntry>;

/**
 * Generation settings passed through to the provider; checked before anything starts (unknown keys, types and
 * ranges refused, naming the field).
 */
export interface ModelSettings {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  seed?: number;
  /** The AI SDK's reasoning effort (`'low'`, `'high'`, ...; `'provider-default'` leaves it to the provider). */
  reasoning?: 'provider-default' | 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
}

/** Token usage as the provider reported it; a field the provider did not report is absent, never 0. */
export interface Usage {
  /** Every input token the model read, cached ones included (Anthropic: input + cache writes + cache reads). */
  inputTokens?: number;
  outputTokens?: number;
  /** The provider's total, else input + output when both were reported. */
  totalTokens?: number;
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** The part of `inputTokens` written to the provider's prompt cache. */
  cacheWriteInputTokens?: number;
  /** The part of `outputTokens` spent on reasoning / thinking. */
  reasoningTokens?: number;
}

/** The decision that led to an attempt: the action taken on the attempt before, and the wait before this one. */
export interface AttemptCause {
  action: Action;
  retryInMs: number;
}

/** An attempt held off its backend's limit queue (see `ModelRequestInput.held`). */
export interface HeldAttempt {
  /** How long the backend was still cooling when the workflow asked (`backendCooling`), in ms. */
  retryAfterMs: number;
}

/** The input of one attempt (`modelRequest` activity). */
export interface ModelRequestInput {
  /** The workflow this attempt belongs to; `<workflowId>/<modelCallId>` is sent as `X-Request-Id`. */
  workflowId: string;
  /** `c<k>`: the k-th model call of the workflow chain. */
  callId: string;
  /** 1-based attempt number within the call. */
  attempt: number;
  /** `<callId>.<attempt>`; also the activity id. */
  modelCallId: string;
  /** Index of the backend in the call's chain. */
  backend: number;
  /** `provider:model`, e.g. `local:fast`. */
  model: string;
  /** What the provider is sent: the AI SDK's call options in wire form (see `WireRequest`). */
  request: WireRequest;
  /** The request timeout T in ms: the activity aborts the request itself after this long. */
  timeoutMs: number;
  /**
   * A call with a deadline: the last moment it may spend (epoch ms, the deadline less the reserve). The
   * activity's request timeout is `min(timeoutMs, spendUntil − its start)`, counted from when it starts, so an
   * attempt that waited in a (limit) queue still ends by itself before the deadline.
   */
  spendUntil?: number;
  /**
   * The plan's `minAttemptMs`: an attempt with less of its request time left than this once it can send (after
   * waiting in its backend's rate-limit queue and for a `maxInFlight` slot) sends nothing and fails `CoolingDown`.
   * Absent (scheduled by an older workflow): 1 ms.
   */
  minAttemptMs?: number;
  /**
   * The workflow saw the backend cooling (`backendCooling`) and scheduled this attempt on its own queue instead of
   * the backend's limit queue: it sends nothing and fails `CoolingDown` whatever fleet health says by now, with the
   * cool-down the workflow was told (`retryAfterMs`), not the one of the worker that happens to run it (which may
   * not know the backend at all). `true` comes from a workflow of an earlier version, which carried no cool-down:
   * the worker then answers from its own copy (0 when it has none).
   */
  held?: HeldAttempt | true;
  /** Absent on a call's first attempt. */
  after?: AttemptCause;
  /**
   * Stream: publish each text delta into the workflow's stream, in batches every `batchMs`. `onCut: 'continue'`:
   * a cut is not the end of the call (see `continuation`), so a tool call's input is published only once the tool
   * call is complete (a cut inside it delivered nothing of it).
   */
  stream?: { batchMs: number; onCut?: 'continue' };
  /**
   * The text earlier attempts of this call delivered to the stream before they were cut: this attempt continues
   * it (a prefill where the model takes one, else an instruction) and publishes only what follows it.
   */
  continuation?: AttemptContinuation;
  /** Structured output: ask the provider for JSON matching `schema`, and validate the answer against it. */
  output?: { schema: Record<string, unknown> };
  /**
   * The call has a cost budget: a model without `pricing` in the providers file fails as `Misconfigured`
   * (naming `pricing`) before any request is sent.
   */
  costBudget?: true;
  /**
   * The call's tenant (`ModelCallInput.tenant`): the worker reserves the attempt against the tenant's envelope and
   * serves it by the tenant's weight. Absent for a call without one.
   */
  tenant?: string;
}

/** What an attempt continues (`ModelRequestInput.continuation`). */
export interface AttemptContinuation {
  /** Every character the call's earlier attempts delivered to the stream, in order. */
  text: string;
  /** The attempt cut last (`<callId>.<attempt>`), whose delivered text this one continues. */
  continues: string;
}

/** How an attempt asked to continue, and what it left out of what the model sent (`ModelRequestResult.continuation`). */
export interface ContinuationFacts {
  /** `prefill`: the delivered text as the start of the assistant's answer; `instruction`: an instruction to continue. */
  form: 'prefill' | 'instruction';
  /**
   * The model refused the prefill with a 400 before anything streamed, and the attempt asked again at once with an
   * instruction: two provider requests under the attempt's one `X-Request-Id`.
   */
  prefillRefused?: true;
  /** Characters of the continuation's head left out because they repeated the delivered text's end. */
  trimmed?: number;
}

/** A successful attempt (`modelRequest`'s result). */
export interface ModelRequestResult {
  text: string;
  toolCalls: ToolCall[];
  /** The unified finish reason (`stop`, `length`, `tool-calls`, `content-filter`, `error`, `other`). */
  finishReason: string;
  /** The provider's content in order, in wire form: text, reasoning with its metadata, tool calls, files, sources. */
  content?: WireContent[];
  /** The provider's own finish reason (`end_turn`, `STOP`, ...), when it gave one. */
  rawFinishReason?: string;
  /** What the provider warned of (an unsupported setting, ...), as the AI SDK reports it. */
  warnings?: unknown[];
  /** The response's metadata: its id, the provider's model id, its time (ISO) and allow-listed headers. */
  response?: AnswerResponse;
  /** The provider's metadata, unchanged (cache usage, signatures, safety ratings, ...). */
  providerMetadata?: Record<string, Record<string, unknown>>;
  usage?: Usage;
  responseId?: string;
  /** The model that answered, as the provider named it (e.g. a dated version of the model asked for). */
  responseModel?: string;
  /** The provider name of the model (`local`, `openai`, ...). */
  provider?: string;
  /** Cost in USD, only when the provider reported one. */
  cost?: number;
  /** With `output`: the answer parsed and validated against the schema (absent when the answer is tool calls). */
  object?: unknown;
  /** An embedding request's vectors, in the order of its values: each base64 of Float32 (little-endian). */
  embeddings?: string[];
  /** ISO times the activity started and finished the request. */
  startedAt: string;
  endedAt: string;
  /**
   * Which of model-retry's search attributes the worker knows to be registered (`true` all, `false` none, else
   * their names; absent: it does not know).
   */
  searchAttributesReady?: SearchAttributesReady;
  /** An attempt that continued a cut stream: how it asked. Its `text` and `content` are only what it added. */
  continuation?: ContinuationFacts;
}

/** The metadata of a provider's response (`ModelRequestResult.response`). */
export interface AnswerResponse {
  id?: string;
  modelId?: string;
  /** ISO time the provider gave its answer. */
  timestamp?: string;
  /** Response headers on the allow-list (request ids, rate limits, retry-after). */
  headers?: Record<string, string>;
}

/**
 * The facts of a failed attempt, carried as `details[0]` of the non-retryable `ApplicationFailure` whose `type` is
 * the failure class. `message` is bounded and scrubbed (no key, no Authorization value, no request body).
 */
export interface AttemptFailureDetails {
  class: FailureClass;
  status?: number;
  /** The provider's error code or type (`insufficient_quota`, `overloaded_error`, ...) or the socket code. */
  code?: string;
  /** From `retry-after-ms` / `retry-after`, in ms. */
  retryAfterMs?: number;
  /** From the `x-should-retry` header. */
  shouldRetry?: 'retry-same' | 'drop';
  message: string;
  startedAt: string;
  endedAt: string;
  /** Usage the provider reported although the attempt failed (e.g. an empty or filtered answer): it was billed. */
  usage?: Usage;
  /** As `ModelRequestResult.searchAttributesReady`. */
  searchAttributesReady?: SearchAttributesReady;
  /** An attempt that answered (a 2xx) and still failed: the unified finish reason of its answer. */
  finishReason?: string;
  /** A `SchemaMismatch`: the answer and what the validator said of it, for the repair's correction. */
  mismatch?: SchemaMismatchFacts;
  /** An attempt that continued a cut stream: how it asked (it may have been cut again). */
  continuation?: ContinuationFacts;
  /**
   * Nothing was sent: the call's tenant has no room left in its envelope for this attempt (the message names the
   * envelope and when it renews). The call stops `budget`.
   */
  overEnvelope?: true;
}

/**
 * What a `SchemaMismatch` attempt answered and why it does not validate: the workflow appends both to the
 * conversation of the repair. Bounded (a long answer is cut, at most a few errors, each a short line) and
 * scrubbed like every message.
 */
export interface SchemaMismatchFacts {
  /** The answer's text as the model gave it (cut past a bound, which the text then says). */
  answer: string;
  /** The validator's errors, one line each (`/age: must be integer`), the first one first; or why it did not parse. */
  errors: string[];
}

/** What the attempt heartbeats while it waits for the provider (readable after a heartbeat timeout). */
export interface AttemptHeartbeat {
  startedAt: string;
}
