import type { SharedNotBefore } from '../policy/index.js';
import type { Budget, RetryPlan, ResolvedPlan, Spent, StopReason } from '../policy/index.js';
import type { ModelSettings, Usage } from './attempt.js';
import type { CallMessage } from './messages.js';
import type { WireMessage } from './request.js';
import type { TurnToolDefinition } from './tools.js';
import type { AttemptRecord, BilledTotals, LastDecision, ModelCallInput } from './call.js';
import type { StreamOptions } from './stream.js';
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';

/**
 * What an agent turn is asked to do: a loop of model calls and tool calls under one deadline. Plain JSON;
 * checked before the workflow starts (`startAgentTurn`) and again in the workflow.
 */
export interface AgentTurnInput {
  /** The chain of backends, `provider:model`, shared by every model call of the turn. */
  model: string | string[];
  system?: string;
  /** The conversation so far: the AI SDK's `ModelMessage`s or the plain shape (see `ModelCallInput.messages`). */
  messages?: CallMessage[];
  /** A user message appended after `messages`. */
  prompt?: string;
  /**
   * Names of tools in the worker's tool registry the model may call (`['calculator', 'get_time']`). The
   * workflow reads their definitions (schema, retry policy, timeout) from the worker once, at its start.
   */
  tools?: string[];
  settings?: ModelSettings;
  /** Provider options of every model call (see `ModelCallInput.providerOptions`). */
  providerOptions?: ModelCallInput['providerOptions'];
  /** Request headers of every model call (see `ModelCallInput.headers`; credentials are refused). */
  headers?: Record<string, string>;
  /**
   * The retry plan of each model call (waits or backoff, attempts, timeouts, actions). Its deadline and reserve
   * are the turn's: give them as `deadline`/`deadlineInMs` and `reserveMs` here, not inside `retry`. Absent or
   * `false`: one attempt per model call.
   */
  retry?: RetryPlan | false;
  /** The turn's deadline, an ISO instant with a zone. Not with `deadlineInMs`. */
  deadline?: string;
  /** The turn's deadline in ms from the start of the workflow chain. Not with `deadline`. */
  deadlineInMs?: number;
  /** Time the turn never spends: left to the host at the deadline. @default 60000 */
  reserveMs?: number;
  /** The most model calls (steps) of the turn, from 1 to 10000. @default 50 */
  maxSteps?: number;
  /** Stream every model call's answer into the turn's stream; `onCut` as for a call (see `ModelCallInput.stream`). */
  stream?: boolean | StreamOptions;
  /**
   * What the whole turn may spend, over all its model calls and their failed attempts (see
   * `ModelCallInput.budget`). A turn stopped by it completes like one stopped by its deadline: `budget`.
   */
  budget?: Budget;
  /** Who the turn is for: every model call and tool of the turn carries it (see `ModelCallInput.tenant`). */
  tenant?: string;
  /** Set by the turn itself when it continues as new; never set it yourself. */
  carried?: TurnCarry;
}

/** One tool call of a step, as the turn keeps it. */
export interface ToolStepRecord {
  toolCallId: string;
  name: string;
  /** The activity id, `<callId>.tool.<n>`. */
  activityId: string;
  outcome: 'running' | 'succeeded' | 'error' | 'fatal' | 'cancelled';
  /** Temporal attempts the tool took, when it ended with a result. */
  attempts?: number;
  startedAt?: string;
  endedAt?: string;
  /** On `error` and `fatal`: what went back to the model, or why the turn stopped (bounded). */
  error?: string;
}

/** One step: a model call and the tool calls it asked for. */
export interface TurnStep {
  /** 1-based, counted over the whole chain of runs. */
  step: number;
  callId: string;
  attempts: AttemptRecord[];
  /** The backend that answered. */
  model?: string;
  text?: string;
  finishReason?: string;
  /** The answering attempt's usage. */
  usage?: Usage;
  tools: ToolStepRecord[];
  /** When the call stopped without an answer. */
  stopReason?: StopReason;
}

/** How a turn ended without failing: a final answer, the deadline or `maxSteps`. */
export type TurnEnd = 'succeeded' | 'deadline' | 'max-steps' | 'budget';

/** What an agent turn returns (its workflow completes) when it ends with `succeeded`, `deadline` or `max-steps`. */
export interface AgentTurnResult {
  stopReason: TurnEnd;
  /** The final answer; on `deadline` or `max-steps` the last assistant text so far (maybe ''). */
  text: string;
  /**
   * The messages the turn added to the conversation, in the AI SDK's message form: assistant messages (with their
   * reasoning and its metadata) and tool results, in order. Append them to the conversation of the next turn.
   */
  messages: WireMessage[];
  steps: TurnStep[];
  /** Sum of the answering attempts' usage over every step. */
  usage: Usage;
  /** What the providers billed across every attempt of every step. */
  billed: BilledTotals;
  /** A turn with a budget: what its calls counted as spent (see `ModelCallResult.spent`). */
  spent?: Spent;
  /** The turn's deadline (ISO), as last extended. */
  deadline?: string;
  /** Why the turn stopped, in words. */
  why: string;
  /** The decision that ended the turn's last model call, when one ended it (`deadline` during a call). */
  lastDecision?: LastDecision;
  /** How many runs (continue-as-new) the turn took. */
  runs: number;
}

/**
 * `details[0]` of the failure a turn fails with when it stops otherwise (a model call stopped without an answer,
 * a fatal tool, an input too large): what the turn had done so far.
 */
export type AgentTurnPartial = Omit<AgentTurnResult, 'stopReason'> & {
  stopReason: StopReason;
  /** Set when the failure would have passed Temporal's payload limit: what it left out, and where to read it. */
  omitted?: TurnOmitted;
};

/**
 * What a turn's failure left out to stay under Temporal's payload limit (which the server enforces by
 * terminating the run): the fields emptied or dropped, its size before, and where the full story is.
 */
export interface TurnOmitted {
  /** E.g. `messages` (emptied), `steps[].text`, `text`, `partialText`, `steps before the last 20`, `message`. */
  fields: string[];
  /** The failure's message and details as UTF-8 JSON before anything was left out. */
  bytes: number;
  /** Where the parts left out can be read (the turn's event history). */
  readFrom: string;
}

/** What the `status` query answers about a turn. */
export interface TurnStatus {
  /** The current step (1-based), 0 before the first. */
  step: number;
  maxSteps: number;
  /** `model`: a model attempt is in flight; `waiting`: between attempts; `tools`: tool calls run. */
  phase: 'starting' | 'model' | 'waiting' | 'tools' | 'stopped';
  callId?: string;
  attempt?: number;
  backend?: number;
  model?: string;
  /** While waiting: when the next attempt starts (ISO). */
  waitingUntil?: string;
  /** While tools run: their names and state. */
  tools?: { name: string; activityId: string; outcome: ToolStepRecord['outcome'] }[];
  deadline?: string;
  stopReason?: StopReason;
  /** How many runs the turn has taken so far (1 + continue-as-new count). */
  runs: number;
  /** Attempts across the whole chain of runs. */
  attempts: number;
}

/** What a turn carries across continue-as-new. */
export interface TurnCarry {
  /** The resolved plan of every call: absolute deadline, reserve, waits. */
  plan: ResolvedPlan;
  /** The whole conversation so far (input and new messages). */
  messages: WireMessage[];
  /** How many of `messages` came with the input (the rest are the turn's own). */
  inputCount: number;
  steps: TurnStep[];
  notBefore: SharedNotBefore;
  callCount: number;
  tools: TurnToolDefinition[];
  runs: number;
  /** A turn with a budget: what its calls spent so far. */
  spent?: Spent;
  /** The turn's stream (its log and publishers), so subscribers read on across runs. */
  stream?: WorkflowStreamState;
}

/** The failure type of a turn whose input is invalid. */
export const INVALID_AGENT_TURN_INPUT = 'InvalidAgentTurnInput';
/** The failure type of a turn whose conversation has grown too large for Temporal's payload limit. */
export const TURN_TOO_LARGE = 'AgentTurnTooLarge';
/** The failure type of a turn stopped by a fatal tool failure (stop reason `non-retryable`). */
export const TURN_TOOL_FATAL = 'AgentTurnToolFatal';
