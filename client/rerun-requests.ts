/**
 * The recorded requests of a workflow's calls, read from its decoded histories (a chain of runs, oldest first):
 * for each call, its first attempt's request (the activity's scheduled input, with no repair's corrections and no
 * continuation: only later attempts carry those) and its original answer. An agent turn's calls are its steps.
 */
import type { temporal } from '@temporalio/proto';
import type { ModelRequestInput, ModelRequestResult } from '../common/attempt.js';
import type { AttemptRecord } from '../common/call.js';
import { REQUEST_SPEC } from '../common/request.js';
import { answerOf } from '../common/rerun-answer.js';
import type { RerunRequest } from '../common/rerun-input.js';
import type { RerunSkipped, RerunSource } from '../common/rerun.js';
import { readCallHistories, runLinks } from './history-chain.js';
import { firstPayload, idOf } from './history-events.js';

type History = temporal.api.history.v1.IHistory;

const ATTEMPT_ACTIVITY = 'modelRequest';
const TURN_WORKFLOW = 'agentTurnWorkflow';

/** What to rerun was refused before anything started (an unknown call, no workflow, no model). */
export class RerunRefusedError extends Error {
  override name = 'RerunRefusedError';
}

/** A workflow's runs, decoded, with the events whose payloads could not be (a stored object that is gone). */
export interface RecordedRuns {
  workflowId: string;
  /** The chain's histories, oldest first, decoded through the codecs. */
  histories: History[];
  /** `<runId>/<eventId>` -> why the event's payloads could not be decoded; their payloads read as `null`. */
  undecodable?: ReadonlyMap<string, string>;
}

/** What one call of a run left: its first attempt's input (or why it cannot be read) and its last answer. */
interface CallTrace {
  callId: string;
  runId: string;
  first?: ModelRequestInput;
  firstUnreadable?: string;
  answer?: ModelRequestResult;
  answerUnreadable?: string;
}

/**
 * Every call of `runs` (or only `callId`) as a request to rerun, or skipped with the reason: a request or answer
 * whose stored payload is gone, an embedding, a call that has not ended.
 * @throws RerunRefusedError when `callId` is given and the workflow has no such call (with `missingCall: 'skip'`
 * that workflow is skipped instead).
 */
export function recordedRequests(
  runs: RecordedRuns,
  callId?: string,
  options: { missingCall?: 'refuse' | 'skip' } = {},
): { requests: RerunRequest[]; skipped: RerunSkipped[] } {
  const traces = traceCalls(runs);
  const history = readCallHistories(runs.histories);
  const started = runs.histories[0]?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const turn = started?.workflowType?.name === TURN_WORKFLOW;
  const lastCall = [...traces.keys()].at(-1);
  if (callId !== undefined && !traces.has(callId)) {
    const known = [...traces.keys()];
    const why =
      `workflow ${runs.workflowId} has no call ${callId}` +
      (known.length > 0 ? ` (its calls: ${known.join(', ')})` : ' (it made no model call)');
    // A run a query found may lack the call: it is skipped; a workflow named explicitly must have it.
    if (options.missingCall !== 'skip') throw new RerunRefusedError(why);
    const runId = runLinks(runs.histories.at(-1) ?? {}).runId ?? '';
    return {
      requests: [],
      skipped: [{ source: { workflowId: runs.workflowId, runId, callId }, reason: why }],
    };
  }
  const requests: RerunRequest[] = [];
  const skipped: RerunSkipped[] = [];
  for (const trace of traces.values()) {
    if (callId !== undefined && trace.callId !== callId) continue;
    const source: RerunSource = {
      workflowId: runs.workflowId,
      runId: trace.runId,
      callId: trace.callId,
      ...(turn ? { step: Number(trace.callId.slice(1)) } : {}),
    };
    const attempts = history.attempts.filter((r) => r.callId === trace.callId);
    const why = skipReason(trace, attempts);
    if (why !== undefined) {
      skipped.push({ source, reason: why });
      continue;
    }
    const first = trace.first as ModelRequestInput;
    const answer = trace.answer;
    const failedStop =
      trace.callId === lastCall && history.status === 'failed' ? history.stopReason : undefined;
    const original = answerOf({
      workflowId: runs.workflowId,
      attempts,
      ...(answer
        ? { output: { text: answer.text, toolCalls: answer.toolCalls, finishReason: answer.finishReason } }
        : {}),
      ...(failedStop ? { stopReason: failedStop } : {}),
    });
    requests.push({
      source,
      request: first.request,
      ...(first.output ? { output: { schema: first.output.schema } } : {}),
      original,
      originalAttempts: attempts.map((a) => ({
        model: a.model,
        outcome: a.outcome,
        ...(a.usage ? { usage: a.usage } : {}),
        ...(a.cost !== undefined ? { cost: a.cost } : {}),
      })),
    });
  }
  return { requests, skipped };
}

function skipReason(trace: CallTrace, attempts: readonly AttemptRecord[]): string | undefined {
  if (trace.firstUnreadable !== undefined)
    return `its recorded request cannot be read: ${trace.firstUnreadable}`;
  const first = trace.first;
  if (!first) return 'its first attempt is not in the history';
  if (first.request?.spec !== REQUEST_SPEC)
    return 'its request was recorded in an older form, without the whole request';
  if (first.request.embed) return 'an embedding call: a rerun compares answers to conversations, not vectors';
  if (trace.answerUnreadable !== undefined)
    return `its recorded answer cannot be read: ${trace.answerUnreadable}`;
  if (!trace.answer && attempts.some((a) => a.outcome === 'running'))
    return 'the call has not ended: rerun it once it has';
  return undefined;
}

/** Each call's first input and last answer, calls in the order of their first attempt. */
function traceCalls(runs: RecordedRuns): Map<string, CallTrace> {
  const traces = new Map<string, CallTrace>();
  for (const history of runs.histories) {
    const runId = runLinks(history).runId ?? '';
    const callOf = new Map<number, CallTrace>();
    const continued = new Map<number, string>();
    for (const event of history.events ?? []) {
      const unreadable = runs.undecodable?.get(`${runId}/${idOf(event.eventId)}`);
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === ATTEMPT_ACTIVITY) {
        // The activity id is the attempt's `<callId>.<attempt>`: readable even when the input is not.
        const [callId, attempt] = (scheduled.activityId ?? '').split('.');
        if (!callId) continue;
        let trace = traces.get(callId);
        if (!trace) {
          trace = { callId, runId };
          traces.set(callId, trace);
        }
        callOf.set(idOf(event.eventId), trace);
        if (attempt !== '1') {
          // A continuation answers only what follows the text earlier attempts delivered: the answer is both.
          const input =
            unreadable === undefined ? firstPayload<ModelRequestInput>(scheduled.input) : undefined;
          if (input?.continuation) continued.set(idOf(event.eventId), input.continuation.text);
          continue;
        }
        if (unreadable !== undefined) trace.firstUnreadable = unreadable;
        else {
          const input = firstPayload<ModelRequestInput>(scheduled.input);
          if (input) trace.first = input;
        }
        continue;
      }
      const completed = event.activityTaskCompletedEventAttributes;
      const trace = completed ? callOf.get(idOf(completed.scheduledEventId)) : undefined;
      if (!completed || !trace) continue;
      if (unreadable !== undefined) trace.answerUnreadable = unreadable;
      else {
        const result = firstPayload<ModelRequestResult>(completed.result);
        const before = continued.get(idOf(completed.scheduledEventId));
        if (result) trace.answer = before === undefined ? result : { ...result, text: before + result.text };
      }
    }
  }
  return traces;
}
