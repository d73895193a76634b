import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { isDeadlineTimeout, spendUntilMs } from '../../policy/index.js';
import type { ResolvedPlan } from '../../policy/index.js';
import type { ToolCall } from '../../common/attempt.js';
import type { WireMessage } from '../../common/request.js';
import type { ToolActivities, TurnToolDefinition } from '../../common/tools.js';
import { ToolFailureType } from '../../common/tools.js';
import { iso } from '../../common/iso.js';
import { heartbeatTimeoutMs } from '../../common/heartbeat.js';
import { tenantPriority } from '../../common/fairness.js';
import { workerConfigAnswered } from '../call/worker-config.js';
import type { ToolStepRecord } from '../../common/turn.js';

/** How the tool calls of one step ended, for the turn: go on, or stop (`fatal`, `deadline`). */
export type ToolStepEnd =
  { kind: 'continue' } | { kind: 'fatal'; why: string } | { kind: 'deadline'; why: string };

/** The activity id of the n-th (1-based) tool call that model call `callId` asked for. */
export function toolActivityId(callId: string, n: number): string {
  return `${callId}.tool.${n}`;
}

/**
 * The tool calls of one step, started: each call with its record, and either their outcomes once all have settled
 * (`settled`) or, when the step started one tool activity (the common case), that activity (`one`), which the
 * turn awaits itself and hands to `one.settled` (no promise chained on it: see `startToolCalls`).
 */
export type StartedToolCalls = { started: { call: ToolCall; record: ToolStepRecord }[] } & (
  | { settled: Promise<PromiseSettledResult<OneEnd>[]>; one?: undefined }
  | { one: OneToolCall; settled?: undefined }
);

/** One tool call's activity, and how its outcome becomes the step's settled results. */
export interface OneToolCall {
  activity: Promise<RunToolResult>;
  settled(
    outcome: { ok: true; result: RunToolResult } | { ok: false; error: unknown },
  ): PromiseSettledResult<OneEnd>[];
}

type RunToolResult = Awaited<ReturnType<ToolActivities['runTool']>>;

/** A tool call whose activity started, with what its end does to its record (`ended`, `failed`). */
interface Running {
  activity: Promise<RunToolResult>;
  ended(result: RunToolResult): OneEnd;
  failed(error: unknown): OneEnd;
}

/**
 * Starts the tool calls one model answer asked for, all at once, each as a `runTool` activity with its own retry
 * policy and timeout (capped by the turn's deadline less its reserve). Records are updated in place as calls
 * end. `toolCallsEnded` turns their outcomes into the turn's tool messages. Not an async function, and one call
 * (the common case) is not put through `Promise.allSettled`: every promise a workflow creates costs a stack
 * trace in Temporal's sandbox (docs/decisions/turns/012-step-loop-plain-functions.md).
 */
export function startToolCalls(
  callId: string,
  calls: readonly ToolCall[],
  tools: readonly TurnToolDefinition[],
  plan: ResolvedPlan,
  records: ToolStepRecord[],
  tenant?: string,
): StartedToolCalls {
  const started = calls.map((call, i) => {
    const record: ToolStepRecord = {
      toolCallId: call.id,
      name: call.name,
      activityId: toolActivityId(callId, i + 1),
      outcome: 'running',
    };
    records.push(record);
    return { call, record };
  });
  const runs = started.map(({ call, record }) => {
    try {
      return runOne(
        call,
        record,
        tools.find((t) => t.name === call.name),
        plan,
        tenant,
      );
    } catch (error) {
      // As from an async function: one call that throws leaves the others running, and settles as rejected.
      return Promise.reject(error as Error);
    }
  });
  const [only] = runs;
  if (runs.length === 1 && only && isRunning(only)) {
    return {
      started,
      one: {
        activity: only.activity,
        settled: (outcome) => {
          try {
            const value = outcome.ok ? only.ended(outcome.result) : only.failed(outcome.error);
            return [{ status: 'fulfilled', value }];
          } catch (reason) {
            return [{ status: 'rejected', reason }];
          }
        },
      },
    };
  }
  const ends = runs.map((run) => (isRunning(run) ? run.activity.then(run.ended, run.failed) : run));
  return { started, settled: Promise.allSettled(ends) };
}

function isRunning(run: OneEnd | Running | Promise<never>): run is Running {
  return 'activity' in run;
}

/**
 * The tool calls' results, which go back to the model as tool messages in the order the model asked; a failure
 * after the tool's retries goes back as an error result, unless the tool is fatal. Cancellation is rethrown
 * unchanged (before any other error).
 */
export function toolCallsEnded(
  started: StartedToolCalls['started'],
  settled: readonly PromiseSettledResult<OneEnd>[],
): { messages: WireMessage[]; end: ToolStepEnd } {
  const cancelled = settled.find((s) => s.status === 'rejected' && isCancellation(s.reason));
  if (cancelled?.status === 'rejected') throw cancelled.reason;
  const other = settled.find((s) => s.status === 'rejected');
  if (other?.status === 'rejected') throw other.reason;

  const ends = settled.map((s) => (s.status === 'fulfilled' ? s.value : {}));
  // One tool message holds the results of one assistant turn, as the AI SDK and Anthropic have them.
  const results = started.map(({ call, record }, i) => {
    const ok = record.outcome === 'succeeded';
    return {
      type: 'tool-result' as const,
      toolCallId: call.id,
      toolName: call.name,
      output: ok
        ? { type: 'text' as const, value: ends[i]?.content ?? '' }
        : { type: 'error-text' as const, value: record.error ?? 'the tool failed' },
    };
  });
  const messages: WireMessage[] = results.length > 0 ? [{ role: 'tool', content: results }] : [];
  const fatal = started.find(({ record }) => record.outcome === 'fatal')?.record;
  if (fatal) {
    return {
      messages,
      end: { kind: 'fatal', why: `tool ${fatal.name} (${fatal.activityId}) failed: ${fatal.error ?? ''}` },
    };
  }
  const late = started.find((_, i) => ends[i]?.deadline === true)?.record;
  if (late) {
    return {
      messages,
      end: { kind: 'deadline', why: `tool ${late.name} (${late.activityId}): ${DEADLINE_MESSAGE}` },
    };
  }
  return { messages, end: { kind: 'continue' } };
}

const DEADLINE_MESSAGE = 'the turn reached its deadline (less the reserve) while the tool ran';

/** How one tool call ended: its output, or that it ran into the deadline. */
export interface OneEnd {
  content?: string;
  deadline?: boolean;
}

function runOne(
  call: ToolCall,
  record: ToolStepRecord,
  tool: TurnToolDefinition | undefined,
  plan: ResolvedPlan,
  tenant: string | undefined,
): OneEnd | Running {
  if (!tool) {
    record.outcome = 'error';
    record.error = `unknown tool \`${call.name}\`: this turn offers no such tool`;
    return {};
  }
  const now = Date.now();
  const until = spendUntilMs(plan);
  const left = until === undefined ? undefined : until - now;
  if (left !== undefined && left <= 0) {
    record.outcome = 'error';
    record.error = DEADLINE_MESSAGE;
    return { deadline: true };
  }
  record.startedAt = iso(now);
  const worker = (workerConfigAnswered(tenant) ?? workerConfigAnswered())?.config;
  // The turn's tenant and its weight, as its model attempts have them; nothing for a turn without one.
  const priority = tenantPriority(tenant, worker?.tenants);
  const { runTool } = proxyActivities<ToolActivities>({
    activityId: record.activityId,
    summary: `tool ${call.name}`,
    startToCloseTimeout: tool.timeoutMs,
    ...(left !== undefined ? { scheduleToCloseTimeout: left } : {}),
    // 3c of the worker's cadence, which its first model call asked for (a tool runs after one).
    heartbeatTimeout: heartbeatTimeoutMs(worker?.heartbeatMs),
    retry: {
      maximumAttempts: tool.retry.maximumAttempts,
      initialInterval: tool.retry.initialIntervalMs,
      backoffCoefficient: tool.retry.backoffCoefficient,
      maximumInterval: tool.retry.maximumIntervalMs,
      nonRetryableErrorTypes: [ToolFailureType.Fatal],
    },
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    ...(priority ? { priority } : {}),
  });
  return {
    activity: runTool({
      workflowId: workflowInfo().workflowId,
      activityId: record.activityId,
      toolCallId: call.id,
      name: call.name,
      args: call.args,
    }),
    ended: (result) => {
      record.outcome = result.isError === true ? 'error' : 'succeeded';
      record.attempts = result.attempt;
      record.startedAt = result.startedAt;
      record.endedAt = result.endedAt;
      if (result.isError === true) record.error = result.content;
      return { content: result.content };
    },
    failed: (error) => toolFailed(error, record, tool),
  };
}

/** How a tool call that failed ends: its record says why; cancellation is rethrown. */
function toolFailed(error: unknown, record: ToolStepRecord, tool: TurnToolDefinition): OneEnd {
  record.endedAt = iso(Date.now());
  if (isCancellation(error)) {
    record.outcome = 'cancelled';
    throw error;
  }
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (
    cause instanceof TimeoutFailure &&
    cause.timeoutType &&
    isDeadlineTimeout({ timeoutType: cause.timeoutType })
  ) {
    record.outcome = 'error';
    record.error = DEADLINE_MESSAGE;
    return { deadline: true };
  }
  const message = cause instanceof Error ? cause.message : 'the tool failed';
  const fatal = (cause instanceof ApplicationFailure && cause.type === ToolFailureType.Fatal) || tool.fatal;
  record.outcome = fatal ? 'fatal' : 'error';
  record.error =
    cause instanceof TimeoutFailure
      ? `the tool timed out (${cause.timeoutType ?? 'timeout'})`
      : message || 'the tool failed';
  return {};
}
