import { randomUUID } from 'node:crypto';
import { toWireMessages } from '../common/messages.js';
import { InvalidModelCallInputError } from '../common/input-error.js';
import type { WireMessage } from '../common/request.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { agentTurnWorkflow } from '../workflows/turn/agent-turn.js';
import type { AttemptRecord } from '../common/call.js';
import {
  InvalidAgentTurnInputError,
  jsonBytes,
  tooLarge,
  turnPlan,
  validateTurnInput,
} from '../common/turn-input.js';
import type { AgentTurnInput, AgentTurnResult } from '../common/turn.js';
import { billedTotals } from '../common/ledger/billed.js';
import type { AgentTurnPartial, TurnStep } from '../common/turn.js';
import { fetchRunChain, runLinks } from './history-chain.js';
import { firstPayload } from './history-events.js';
import { readCallHistory } from './history-reader.js';
import { checkFairnessWeight } from './model-call-client.js';
import { startForTenant } from './tenant-start.js';
import type { CallHistory } from './history-reader.js';

/** Options of `startAgentTurn`. */
export interface StartAgentTurnOptions {
  taskQueue: string;
  /** @default `agent-turn-<uuid>` */
  workflowId?: string;
  /** Credential headers the turn's calls may send by name, as the worker's `allowHeaders` allows them. */
  allowHeaders?: string[];
  /** The weight of the turn's tenant in Temporal's fairness (see `StartModelCallOptions.fairnessWeight`). */
  fairnessWeight?: number;
}

/**
 * Starts an agent turn (`agentTurnWorkflow`) after checking its input, plan and size here, so bad input is
 * refused before anything starts: throws `InvalidAgentTurnInputError` or `InvalidRetryPlanError`, whose
 * messages name the field and the fix. Tool names are checked by the worker when the turn starts.
 */
export async function startAgentTurn(
  client: Client,
  input: AgentTurnInput,
  options: StartAgentTurnOptions,
): Promise<WorkflowHandle<typeof agentTurnWorkflow>> {
  // Messages with bytes or URLs cross into Temporal in wire form, and are measured so (base64, not a byte array's
  // JSON).
  const plain: AgentTurnInput = Array.isArray(input.messages)
    ? { ...input, messages: wireMessagesOf(input.messages) }
    : input;
  checkAgentTurn(plain, Date.now(), options.allowHeaders);
  checkFairnessWeight(options.fairnessWeight, plain.tenant, InvalidAgentTurnInputError);
  const workflowId = options.workflowId ?? `agent-turn-${randomUUID()}`;
  return startForTenant(
    (tenant) =>
      client.workflow.start(agentTurnWorkflow, {
        taskQueue: options.taskQueue,
        workflowId,
        args: [plain],
        ...tenant,
      }),
    plain.tenant,
    options.fairnessWeight,
  );
}

/** A turn's messages in wire form; a message that is not one is refused naming the turn's field. */
function wireMessagesOf(messages: NonNullable<AgentTurnInput['messages']>): WireMessage[] {
  try {
    return toWireMessages(messages);
  } catch (error) {
    if (error instanceof InvalidModelCallInputError)
      throw new InvalidAgentTurnInputError(error.field, error.message.slice(error.message.indexOf(':') + 2));
    throw error;
  }
}

/** Checks a turn's input, plan and size as of now, as `startAgentTurn` does; throws on the first problem. */
export function checkAgentTurn(
  input: unknown,
  nowMs = Date.now(),
  allowHeaders: readonly string[] = [],
): asserts input is AgentTurnInput {
  validateTurnInput(input, { allowHeaders: allowHeaders.map((h) => h.toLowerCase()) });
  if (input.carried !== undefined) {
    throw new InvalidAgentTurnInputError(
      'carried',
      'is set by the turn itself when it continues as new; leave it out',
    );
  }
  turnPlan(input, { nowMs, chainStartMs: nowMs, atSubmission: true });
  const why = tooLarge('the turn input', jsonBytes(input));
  if (why !== undefined) throw new InvalidAgentTurnInputError('messages', why);
}

/** What the histories of a turn's chain of runs say. */
export interface TurnHistory {
  /** The last run's close (`continued-as-new` runs before it are followed). */
  status: CallHistory['status'];
  stopReason?: CallHistory['stopReason'];
  /** Every model attempt of every run, in order: equal to the `attempts` query of the last run. */
  attempts: AttemptRecord[];
  /** The run ids, first to last. */
  runIds: string[];
  /** The last run's result, when it completed. */
  result?: AgentTurnResult;
  /** What the turn had done when it failed (from its failure's details), when it failed as a turn. */
  partial?: AgentTurnPartial;
  failureMessage?: string;
}

/**
 * Reads a turn across its chain of runs (`fetchRunChain`: the latest run and the runs it continued from), each
 * run read by `readCallHistory`. A turn that stopped at its deadline during a model call completes with a
 * result, not a `ModelCallFailed`, so that call's last action is taken from the result's `lastDecision`.
 */
export async function readTurnHistory(client: Client, workflowId: string): Promise<TurnHistory> {
  const runs = (await fetchRunChain(client, workflowId)).map((history) => ({
    runId: runLinks(history).runId ?? '',
    history,
  }));
  const read = runs.map((r) => readCallHistory(r.history));
  const partial = failurePartial(runs.at(-1)?.history);
  const last = read.at(-1) as CallHistory;
  const attempts = read.flatMap((r) => r.attempts);
  const result = last.status === 'succeeded' ? (last.result as AgentTurnResult) : undefined;
  const final = attempts.at(-1);
  const action = result?.lastDecision?.action;
  if (action !== undefined && final?.failure && final.failure.action === undefined)
    final.failure.action = action;
  const stopReason = last.stopReason ?? partial?.stopReason;
  return {
    status: last.status,
    ...(stopReason ? { stopReason } : {}),
    attempts,
    runIds: runs.map((r) => r.runId),
    ...(result ? { result } : {}),
    ...(partial ? { partial } : {}),
    ...(last.failureMessage !== undefined ? { failureMessage: last.failureMessage } : {}),
  };
}

/** The partial turn a failed turn's failure carries: `details[0]` (a fatal tool) or its `turn` (`ModelCallFailed`). */
function failurePartial(history: temporal.api.history.v1.IHistory | undefined): AgentTurnPartial | undefined {
  const failed = history?.events?.find((e) => e.workflowExecutionFailedEventAttributes);
  const info = failed?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
  const details = firstPayload<(AgentTurnPartial & { turn?: AgentTurnPartial }) | undefined>(info?.details);
  const partial = details?.turn ?? details;
  return partial && Array.isArray(partial.steps) ? partial : undefined;
}

/** What `turn --json` prints: one object, for a turn that has ended. */
export interface TurnOutcome {
  workflowId: string;
  /**
   * `succeeded`: a final answer; `stopped`: ended cleanly without one (`deadline`, `budget`, `max-steps`), with what it had;
   * `failed`: a model call or a fatal tool stopped it; `cancelled`.
   */
  status: 'succeeded' | 'stopped' | 'failed' | 'cancelled';
  stopReason?: AgentTurnPartial['stopReason'];
  /** The final answer, or the last assistant text so far. */
  text?: string;
  /** The messages the turn added. */
  messages?: AgentTurnPartial['messages'];
  steps?: TurnStep[];
  usage?: AgentTurnPartial['usage'];
  /** Every model attempt, rebuilt from the event histories of the chain of runs. */
  attempts: AttemptRecord[];
  billed: AgentTurnPartial['billed'];
  /** A turn with a budget: what its calls counted as spent. */
  spent?: AgentTurnPartial['spent'];
  runs: number;
  closedAs?: 'terminated' | 'timed-out';
  message?: string;
}

/** The outcome of a turn from its histories, or `undefined` while it runs. */
export function turnOutcome(workflowId: string, history: TurnHistory): TurnOutcome | undefined {
  const done = history.result ?? history.partial;
  const base = {
    workflowId,
    ...(history.stopReason ? { stopReason: history.stopReason } : {}),
    ...(done ? { text: done.text, messages: done.messages, steps: done.steps, usage: done.usage } : {}),
    attempts: history.attempts,
    billed: billedTotals(history.attempts),
    ...(done?.spent ? { spent: done.spent } : {}),
    runs: history.runIds.length,
  };
  switch (history.status) {
    case 'running':
    case 'continued-as-new':
      return undefined;
    case 'succeeded':
      return { ...base, status: history.result?.stopReason === 'succeeded' ? 'succeeded' : 'stopped' };
    case 'cancelled':
      return { ...base, status: 'cancelled', stopReason: 'cancelled' };
    case 'failed':
      return {
        ...base,
        status: 'failed',
        ...(history.failureMessage ? { message: history.failureMessage } : {}),
      };
    case 'terminated':
    case 'timed-out':
      return { ...base, status: 'failed', closedAs: history.status };
  }
}
