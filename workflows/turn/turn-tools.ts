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
import type { ChatMessage, ToolCall } from '../../common/attempt.js';
import type { ToolActivities, TurnToolDefinition } from '../../common/tools.js';
import { ToolFailureType } from '../../common/tools.js';
import { iso } from '../call/call-summary.js';
import { HEARTBEAT_TIMEOUT_MS } from '../call/model-call.js';
import type { ToolStepRecord } from '../../common/turn.js';

/** How the tool calls of one step ended, for the turn: go on, or stop (`fatal`, `deadline`). */
export type ToolStepEnd =
  { kind: 'continue' } | { kind: 'fatal'; why: string } | { kind: 'deadline'; why: string };

/** The activity id of the n-th (1-based) tool call that model call `callId` asked for. */
export function toolActivityId(callId: string, n: number): string {
  return `${callId}.tool.${n}`;
}

/**
 * Runs the tool calls one model answer asked for, all at once, each as a `runTool` activity with its own retry
 * policy and timeout (capped by the turn's deadline less its reserve). Their results go back to the model as
 * tool messages, in the order the model asked; a failure after the tool's retries goes back as an error result,
 * unless the tool is fatal. Records are updated in place as calls end; cancellation is rethrown unchanged.
 */
export async function runToolCalls(
  callId: string,
  calls: readonly ToolCall[],
  tools: readonly TurnToolDefinition[],
  plan: ResolvedPlan,
  records: ToolStepRecord[],
): Promise<{ messages: ChatMessage[]; end: ToolStepEnd }> {
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
  const settled = await Promise.allSettled(
    started.map(({ call, record }) =>
      runOne(
        call,
        record,
        tools.find((t) => t.name === call.name),
        plan,
      ),
    ),
  );
  const cancelled = settled.find((s) => s.status === 'rejected' && isCancellation(s.reason));
  if (cancelled?.status === 'rejected') throw cancelled.reason;
  const other = settled.find((s) => s.status === 'rejected');
  if (other?.status === 'rejected') throw other.reason;

  const ends = settled.map((s) => (s.status === 'fulfilled' ? s.value : {}));
  const messages: ChatMessage[] = started.map(({ call, record }, i) => {
    const ok = record.outcome === 'succeeded';
    return {
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: ok ? (ends[i]?.content ?? '') : (record.error ?? 'the tool failed'),
      ...(ok ? {} : { isError: true }),
    };
  });
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
interface OneEnd {
  content?: string;
  deadline?: boolean;
}

async function runOne(
  call: ToolCall,
  record: ToolStepRecord,
  tool: TurnToolDefinition | undefined,
  plan: ResolvedPlan,
): Promise<OneEnd> {
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
  const { runTool } = proxyActivities<ToolActivities>({
    activityId: record.activityId,
    summary: `tool ${call.name}`,
    startToCloseTimeout: tool.timeoutMs,
    ...(left !== undefined ? { scheduleToCloseTimeout: left } : {}),
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: {
      maximumAttempts: tool.retry.maximumAttempts,
      initialInterval: tool.retry.initialIntervalMs,
      backoffCoefficient: tool.retry.backoffCoefficient,
      maximumInterval: tool.retry.maximumIntervalMs,
      nonRetryableErrorTypes: [ToolFailureType.Fatal],
    },
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  });
  try {
    const result = await runTool({
      workflowId: workflowInfo().workflowId,
      activityId: record.activityId,
      toolCallId: call.id,
      name: call.name,
      args: call.args,
    });
    record.outcome = result.isError === true ? 'error' : 'succeeded';
    record.attempts = result.attempt;
    record.startedAt = result.startedAt;
    record.endedAt = result.endedAt;
    if (result.isError === true) record.error = result.content;
    return { content: result.content };
  } catch (error) {
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
}
