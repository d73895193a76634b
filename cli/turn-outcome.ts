import { attemptsQuery } from '../common/queries.js';
import type { CallStatus } from '../common/call.js';
import { turnStatusQuery } from '../common/queries.js';
import type { TurnStatus } from '../common/turn.js';
import { readTurnHistory, turnOutcome } from '../client/agent-turn-client.js';
import type { TurnOutcome } from '../client/agent-turn-client.js';
import { attachTo } from './attach.js';
import type { Started } from './attach.js';
import type { FollowOptions } from './follow.js';
import { printAnswer } from './follow-run.js';
import { formatMs } from './progress.js';
import { say } from './session.js';
import type { Session } from './session.js';
import type { StreamPrinter } from './stream-print.js';

/** The turn with this id (`attachTo`): a running one to follow, or the recorded outcome of one that has ended. */
export function attachToTurn(session: Session, workflowId: string): Promise<Started<TurnOutcome>> {
  return attachTo(session, workflowId, {
    workflowType: 'agentTurnWorkflow',
    noun: 'an agent turn',
    outcome: async () => turnOutcome(workflowId, await readTurnHistory(session.client, workflowId)),
    running: () => `turn ${workflowId} is already running; attaching to it`,
    notFound: ({ namespace }) =>
      `there is no turn with workflow id ${workflowId} in namespace ${namespace}: check the id, or give \`--model\` and \`--prompt\` to start it.`,
    unreadable: (message) =>
      `cannot read turn ${workflowId} (${message}); run \`model-retry turn --workflow-id ${workflowId}\` again.`,
  });
}

/**
 * Reads a turn's progress from the `attempts` and `status` queries: attempts and waits, and each step's tools
 * once (a new reader for each turn followed).
 */
export function turnProgressReader(): FollowOptions<TurnOutcome>['readProgress'] {
  const toolsShown = new Set<number>();
  return async (handle, query, progress, signal) => {
    const attempts = await query(() => handle.query(attemptsQuery));
    const status = await query(() => handle.query(turnStatusQuery));
    if (signal.aborted) return;
    progress.update(attempts, callStatusOf(status));
    if (status.phase === 'tools' && status.tools && !toolsShown.has(status.step)) {
      toolsShown.add(status.step);
      progress.note(
        `step ${status.step}: tools ${status.tools.map((t) => `${t.name} (${t.activityId})`).join(', ')}`,
      );
    }
  };
}

function callStatusOf(status: TurnStatus): CallStatus | undefined {
  if (status.callId === undefined) return undefined;
  return {
    callId: status.callId,
    state: status.phase === 'waiting' ? 'waiting' : 'attempting',
    attempt: status.attempt ?? 0,
    backend: status.backend ?? 0,
    model: status.model ?? '',
    ...(status.waitingUntil ? { waitingUntil: status.waitingUntil } : {}),
  };
}

/** Prints a turn's outcome: its tools, the answer (or JSON), the summary line; returns the exit code. */
export async function finishTurn(
  outcome: TurnOutcome,
  json: boolean,
  streamed?: StreamPrinter,
): Promise<number> {
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  } else {
    for (const step of outcome.steps ?? []) {
      for (const tool of step.tools) {
        say(
          `step ${step.step} [${tool.activityId}] tool ${tool.name}: ${tool.outcome}${tool.error ? ` (${tool.error})` : ''}`,
        );
      }
    }
    if (streamed) await streamed.end(outcome.text);
    else if (outcome.text) printAnswer(outcome.text);
    say(summary(outcome));
  }
  return outcome.status === 'succeeded' ? 0 : 1;
}

function summary(outcome: TurnOutcome): string {
  const steps = outcome.steps?.length;
  const n = outcome.attempts.length;
  const first = outcome.attempts[0]?.startedAt;
  const last = outcome.attempts.at(-1)?.endedAt;
  const took = first && last ? ` in ${formatMs(Date.parse(last) - Date.parse(first))}` : '';
  const counts = `${steps !== undefined ? `${steps} step${steps === 1 ? '' : 's'}, ` : ''}${n} model attempt${n === 1 ? '' : 's'}`;
  const runs = outcome.runs > 1 ? `, ${outcome.runs} runs` : '';
  const why = outcome.stopReason ?? outcome.closedAs ?? outcome.message ?? 'unknown';
  return `turn ${outcome.status} (${why}) after ${counts}${runs}${took}; workflow ${outcome.workflowId}`;
}
