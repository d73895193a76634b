import type { Action, Budget, FailureClass, RetryPlan, Spent, StopReason } from '../policy/index.js';
import type {
  AnswerResponse,
  ContinuationFacts,
  ModelSettings,
  ToolCall,
  ToolDefinition,
  ToolSet,
  Usage,
} from './attempt.js';
import type { CallMessage } from './messages.js';
import type { WireContent, WireEmbed, WireRequest, WireTool, WireToolChoice } from './request.js';
import type { StreamOptions } from './stream.js';

/** What a durable model call is asked to do. Plain JSON; validated before the workflow starts. */
export interface ModelCallInput {
  /** The chain of backends, `provider:model`, tried in order (`['local:fast', 'local:backup']`). */
  model: string | string[];
  /** A user message; shorthand for `messages: [{ role: 'user', content: prompt }]` (after `system`, if any). */
  prompt?: string;
  system?: string;
  /**
   * The conversation: the AI SDK's `ModelMessage`s (text, image, file, reasoning, tool-call and tool-result parts,
   * each with its `providerOptions`) or the plain shape (`{ role, content: string }`, an assistant's `toolCalls`).
   */
  messages?: CallMessage[];
  /**
   * Tools the model may call: `[{ name, description, inputSchema }]`, the AI SDK's record shape (`ToolSet`), or
   * provider-defined tools (`{ type: 'provider', id: 'anthropic.web_search_20250305', name, args }`).
   */
  tools?: (ToolDefinition | WireTool)[] | ToolSet;
  /** How the model may use the tools, as the AI SDK says it (`{ type: 'required' }`, `{ type: 'tool', toolName }`). */
  toolChoice?: WireToolChoice;
  /**
   * Every generation setting of the AI SDK: `maxOutputTokens`, `temperature`, `topP`, `topK`, `presencePenalty`,
   * `frequencyPenalty`, `stopSequences`, `seed`, `reasoning`.
   */
  settings?: ModelSettings;
  /** Provider options, keyed by provider, sent as they are (`{ anthropic: { thinking: { ... } } }`). */
  providerOptions?: WireRequest['providerOptions'];
  /**
   * Request headers sent to the provider. Written into the history: credentials (`authorization`, `x-api-key`,
   * a `Bearer`, JWT or `sk-` value) are refused; they belong to the worker's providers file.
   */
  headers?: Record<string, string>;
  /** A JSON answer without a schema (`{ type: 'json' }`); with a schema, use `output`. */
  responseFormat?: WireRequest['responseFormat'];
  /**
   * An embedding call instead of a conversation: the texts to embed (and the vectors' `dimensions` when the model
   * can shorten them). Not with `prompt`, `messages`, `system`, `tools`, `toolChoice`, `settings`,
   * `responseFormat`, `output` or `stream`; every backend of the chain must be the same model (`a:m`, `b:m`).
   * The answer's vectors are `output.embeddings`, each base64 of Float32 (little-endian).
   */
  embed?: WireEmbed;
  /** The retry plan; absent or `false`: exactly one attempt. */
  retry?: RetryPlan | false;
  /**
   * Stream the answer: attempts use the provider's streaming request and publish text deltas into the
   * workflow's stream (`model-retry.delta`) as they come. `true` uses the default batch interval. A stream cut
   * after some of its text was delivered stops the call `stream-interrupted`, unless `onCut: 'continue'`: then the
   * plan decides and the next attempt continues the text, each character delivered once.
   */
  stream?: boolean | StreamOptions;
  /**
   * Structured output: the answer must be JSON that validates against `schema` (a JSON Schema object, checked
   * with ajv before anything starts); the result carries it parsed as `output.object`. An answer that does not
   * parse or validate fails `SchemaMismatch`, whose action `repair` asks the same backend again at once with the
   * validator's errors, at most `repairs` times in a row per backend (then `drop`). Not with `stream`.
   */
  output?: StructuredOutput;
  /**
   * What the call may spend, failed attempts included (`maxCostUsd`, `maxInputTokens`, `maxOutputTokens`,
   * `maxTotalTokens`): before every attempt, spent so far + the attempt's worst case must fit, else the call stops
   * `budget`. A cost limit needs a `pricing` for every backend's model in the worker's providers file.
   */
  budget?: Budget;
  /**
   * Who the call is for (`'acme'`): the worker's tenants file gives the tenant its envelope and fairness weight.
   * The call's attempts carry it as Temporal's task fairness key, and a call started by `startModelCall` or the CLI
   * is searchable by it (`ModelRetryTenant`). At most 64 bytes of UTF-8, no control characters, not `*`.
   */
  tenant?: string;
}

/** A call's structured output (`ModelCallInput.output`): what the AI SDK's `responseFormat: { type: 'json', schema }` maps to. */
export interface StructuredOutput {
  /** A JSON Schema (draft-07 or 2019-09/2020-12 by its `$schema`) the answer must validate against. */
  schema: Record<string, unknown>;
  /**
   * How many repairs a backend gets in a row after a `SchemaMismatch` before it is dropped: 0 to 10.
   * @default 2
   */
  repairs?: number;
}

/** One attempt of a call, as the workflow keeps it and as the history reader rebuilds it. */
export interface AttemptRecord {
  /** `<callId>.<attempt>`, also the attempt's activity id. */
  modelCallId: string;
  callId: string;
  attempt: number;
  /** Index of the backend in the call's chain. */
  backend: number;
  /** `provider:model`. */
  model: string;
  startedAt: string;
  endedAt?: string;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'running';
  failure?: AttemptFailure;
  /** On a failure that another attempt follows: the wait before it in ms (0 for an immediate advance). */
  retryInMs?: number;
  /**
   * On an answer: the unified finish reason (`stop`, `length`, `tool-calls`, `content-filter`, ...), also when the
   * answer still failed (content-filtered, empty, cut, or not matching `output.schema`).
   */
  finishReason?: string;
  usage?: Usage;
  responseId?: string;
  provider?: string;
  cost?: number;
  /** A streamed attempt: how many of its text deltas reached the workflow's stream. */
  streamedDeltas?: number;
  /**
   * A call that continues cut streams (`stream.onCut: 'continue'`): how many characters of text this attempt
   * delivered to the stream, in UTF-16 code units as JavaScript's `length` counts them (so `text.slice(0, n)` cuts
   * there), as the continuation's overlap rule counts.
   */
  deliveredChars?: number;
  /** An attempt that continued a cut stream: the attempt (`<callId>.<attempt>`) whose delivered text it continued. */
  continues?: string;
  /** An attempt that continued a cut stream: how it asked, and what of the model's head it left out. */
  continuation?: ContinuationFacts;
}

/** How an attempt failed: its class, what the call did next, and what the provider said (bounded, scrubbed). */
export interface AttemptFailure {
  class: FailureClass;
  /** What the call did about it; absent when nothing could be done (a stream interrupted). */
  action?: Action;
  status?: number;
  code?: string;
  retryAfterMs?: number;
  message: string;
}

/** Sums over every attempt that reported them: what the provider billed for the whole call. */
export interface BilledTotals {
  attempts: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cost?: number;
}

/** The decision that ended a call. */
export interface LastDecision {
  reason: StopReason;
  action?: Action;
  why: string;
}

/** What a call answered: the provider's content whole, and its text and tool calls as conveniences. */
export interface CallOutput {
  /** The text parts, joined. */
  text: string;
  /** The tool calls the caller runs (provider-executed ones are in `content`). */
  toolCalls: ToolCall[];
  /** The unified finish reason (`stop`, `length`, `tool-calls`, `content-filter`, ...). */
  finishReason: string;
  /** The provider's own finish reason, when it gave one. */
  rawFinishReason?: string;
  /** `object`: the parsed, validated answer of a call with `output.schema`. */
  object?: unknown;
  /** The provider's content in order (text, reasoning with its metadata, tool calls and results, files, sources). */
  content?: WireContent[];
  warnings?: unknown[];
  response?: AnswerResponse;
  /** The provider's metadata, unchanged (model-retry's own is `modelRetry` in the AI SDK's result). */
  providerMetadata?: Record<string, Record<string, unknown>>;
  /** An embedding call's vectors, in the order of `embed.values`: each base64 of Float32 (little-endian). */
  embeddings?: string[];
}

/** A call that succeeded. */
export interface ModelCallResult {
  callId: string;
  stopReason: 'succeeded';
  /** `object`: the parsed, validated answer of a call with `output.schema` (absent when the answer is tool calls). */
  output: CallOutput;
  /** The backend that answered. */
  model: string;
  backend: number;
  /**
   * The successful attempt's usage only; for an answer that continued cut streams, the sum over the attempts whose
   * text it holds (each part was billed).
   */
  usage?: Usage;
  responseId?: string;
  attempts: AttemptRecord[];
  billed: BilledTotals;
  /** A call with a budget: what it counted as spent (reported usage and cost, else prices and worst cases). */
  spent?: Spent;
  lastDecision: LastDecision;
}

/** `details[0]` of the `ModelCallFailed` application failure of a call that stopped without an answer. */
export interface ModelCallFailedDetails {
  callId: string;
  stopReason: StopReason;
  attemptCount: number;
  lastDecision: LastDecision;
  /** The last 20 attempt records. */
  attempts: AttemptRecord[];
  billed: BilledTotals;
  /** A call with a budget: what it counted as spent (see `ModelCallResult.spent`). */
  spent?: Spent;
  /**
   * A streamed call that stopped after text reached its stream: that text (`stream-interrupted`: the last
   * attempt's; under `onCut: 'continue'`, every character its attempts delivered).
   */
  partialText?: string;
}

/** What the `status` query answers while a call runs and after it ends. */
export interface CallStatus {
  callId: string;
  state: 'attempting' | 'waiting' | 'stopped';
  attempt: number;
  backend: number;
  model: string;
  /** While waiting: when the next attempt starts (ISO). */
  waitingUntil?: string;
  /** The call's deadline, when it has one (ISO). */
  deadline?: string;
  stopReason?: StopReason;
}

/** The failure type a call that stops without an answer ends with. */
export const MODEL_CALL_FAILED = 'ModelCallFailed';
/** The failure type of a call whose plan or input is invalid. */
export const INVALID_RETRY_PLAN = 'InvalidRetryPlan';
/** The failure type of a call whose input is invalid (`InvalidModelCallInputError`). */
export const INVALID_MODEL_CALL_INPUT = 'InvalidModelCallInput';
