import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { InvalidRetryPlanError } from '../policy/index.js';
import { agentTurnWorkflow } from '../workflows/turn/agent-turn.js';
import { attemptsQuery } from '../workflows/call/call-log.js';
import type { CallStatus } from '../common/call.js';
import { InvalidAgentTurnInputError } from '../workflows/turn/turn-input.js';
import { turnStatusQuery } from '../workflows/turn/turn-state.js';
import type { AgentTurnInput, TurnStatus } from '../common/turn.js';
import { checkAgentTurn, readTurnHistory, turnOutcome } from '../client/agent-turn-client.js';
import type { TurnOutcome } from '../client/agent-turn-client.js';
import { UsageError, parseCommandArgs, runFlags } from './args.js';
import { POLL_MS, followCall } from './call-follow.js';
import { TURN_HELP } from './help.js';
import { PLAN_FLAG_OPTIONS, planFromFlags, planRefusal } from './plan-flags.js';
import { SETTINGS_FLAG_OPTIONS, settingsFlagOf, settingsFromFlags } from './settings-flags.js';
import type { SettingsFlagValues } from './settings-flags.js';
import type { ProgressPrinter } from './progress.js';
import { formatMs } from './progress.js';
import { followOutputs } from './stream-print.js';
import { startOnce } from './start-once.js';
import type { StreamPrinter } from './stream-print.js';
import { messageOf, openSession, pause } from './session.js';
import type { Session } from './session.js';

const TURN_OPTIONS = {
  model: { type: 'string', multiple: true },
  prompt: { type: 'string' },
  system: { type: 'string' },
  tool: { type: 'string', multiple: true },
  'max-steps': { type: 'string' },
  ...PLAN_FLAG_OPTIONS,
  ...SETTINGS_FLAG_OPTIONS,
  'workflow-id': { type: 'string' },
  'task-queue': { type: 'string' },
  json: { type: 'boolean' },
  stream: { type: 'boolean' },
} as const;

/** The turn input's fields as the flags that set them, for refusals. */
const FLAG_OF: Record<string, string> = { tools: '--tool', maxSteps: '--max-steps', messages: '--prompt' };

const say = (line: string) => process.stderr.write(`model-retry: ${line}\n`);

/**
 * `model-retry turn`: one agent turn (model and tool steps) under a deadline, with the conventions of `call`:
 * input checked before anything starts (exit 2), one workflow id is one turn (a re-run attaches or reports),
 * progress on stderr and the answer on stdout (or `--json`), Ctrl-C detaches (exit 3). Exit 0 for a final answer;
 * 1 when the turn stopped without one (`deadline`, `max-steps`), failed or was cancelled.
 */
export async function runTurnCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('turn', args, TURN_OPTIONS);
  if (values.help) {
    process.stdout.write(TURN_HELP);
    return 0;
  }
  const { json, taskQueue, givenId } = runFlags(values, positionals);
  const attachOnly = values.model === undefined && values.prompt === undefined && givenId !== undefined;
  const input = attachOnly ? undefined : inputFromFlags(values);
  const workflowId = givenId ?? `agent-turn-${randomUUID()}`;
  const session = await openSession();
  try {
    const started = input
      ? await startOnce(
          { workflowId, taskQueue, what: 'turn' },
          (options) => session.client.workflow.start(agentTurnWorkflow, { ...options, args: [input] }),
          () => attach(session, workflowId),
          say,
        )
      : await attach(session, workflowId);
    if (typeof started === 'number') return started;
    if ('outcome' in started) {
      say(`turn ${workflowId} has already ended; its recorded outcome follows (nothing new was started)`);
      return await finish(started.outcome, json);
    }
    if (!json) say(`following turn ${workflowId} (task queue ${started.taskQueue}); Ctrl-C detaches`);
    const { printer, progress } = followOutputs(session.client, workflowId, {
      stream: values.stream === true,
      json,
      say,
    });
    const stop = new AbortController();
    const polling = progress ? pollTurn(session, started.handle, progress, stop.signal) : Promise.resolve();
    const warn = (line: string) => (progress ? progress.note(`model-retry: ${line}`) : say(line));
    const followed = await followCall({
      session,
      handle: started.handle,
      taskQueue: started.taskQueue,
      warn,
    });
    stop.abort();
    await polling;
    progress?.finish();
    if (followed.kind === 'closed') {
      const outcome = turnOutcome(workflowId, await readTurnHistory(session.client, workflowId));
      if (outcome) return await finish(outcome, json, printer);
    }
    const why =
      followed.kind === 'detached'
        ? 'detached (Ctrl-C does not cancel the turn)'
        : 'lost touch with the turn';
    say(
      `${why}; turn ${workflowId} goes on.\n  attach again:  model-retry turn --workflow-id ${workflowId}\n` +
        `  cancel it:     model-retry cancel ${workflowId}`,
    );
    if (json) {
      const reason = followed.kind === 'detached' ? 'detached' : 'connection-lost';
      process.stdout.write(`${JSON.stringify({ workflowId, status: 'unknown', reason })}\n`);
    }
    return 3;
  } finally {
    await session.close();
  }
}

function inputFromFlags(values: Record<string, string | boolean | string[] | undefined>): AgentTurnInput {
  const models = values.model as string[] | undefined;
  if (models === undefined || models.length === 0) {
    throw new UsageError(
      '`--model` is missing: name a backend as provider:model (e.g. `--model local:fast`).',
    );
  }
  if (typeof values.prompt !== 'string')
    throw new UsageError('`--prompt` is missing: give the prompt, e.g. `--prompt "Hello"`.');
  // The deadline and reserve are the turn's, not part of each call's retry plan.
  const { deadline, reserve, ...planValues } = values as Parameters<typeof planFromFlags>[0];
  const retry = planFromFlags(planValues);
  const budget = planFromFlags({ deadline, reserve }) || {};
  const maxSteps = values['max-steps'];
  const steps = typeof maxSteps === 'string' ? Number(maxSteps) : undefined;
  if (steps !== undefined && !Number.isFinite(steps)) {
    throw new UsageError(`\`--max-steps\` must be a whole number, not ${JSON.stringify(maxSteps)}.`);
  }
  const tools = values.tool as string[] | undefined;
  const settings = settingsFromFlags(values as SettingsFlagValues);
  const input: AgentTurnInput = {
    model: models.length === 1 ? (models[0] as string) : models,
    prompt: values.prompt,
    ...(typeof values.system === 'string' ? { system: values.system } : {}),
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(steps !== undefined ? { maxSteps: steps } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(budget.deadlineInMs !== undefined ? { deadlineInMs: budget.deadlineInMs } : {}),
    ...(budget.reserveMs !== undefined ? { reserveMs: budget.reserveMs } : {}),
    ...(values.stream === true ? { stream: true } : {}),
    ...(settings !== undefined ? { settings } : {}),
  };
  try {
    checkAgentTurn(input);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    if (error instanceof InvalidAgentTurnInputError) {
      const field = error.field.replace(/\[\d+\]$/, '');
      const flag = settingsFlagOf(error.field) ?? FLAG_OF[field] ?? `--${field}`;
      throw new UsageError(`\`${flag}\`${error.message.slice(error.message.indexOf(':'))}`);
    }
    throw error;
  }
  if (retry === undefined) {
    say(
      'no retry plan given: each model call of the turn makes exactly one attempt. To retry, add `--waits 1000,5000` or `--backoff default`.',
    );
  }
  return input;
}

type Started = { handle: WorkflowHandle; taskQueue: string } | { outcome: TurnOutcome } | number;

/** The turn with this id: a running one to follow, or the recorded outcome of one that has ended. */
async function attach(session: Session, workflowId: string): Promise<Started> {
  const handle = session.client.workflow.getHandle(workflowId);
  try {
    const description = await handle.describe();
    if (description.type !== 'agentTurnWorkflow') {
      say(
        `workflow id ${workflowId} belongs to a "${description.type}" workflow, not an agent turn: choose another \`--workflow-id\`.`,
      );
      return 2;
    }
    const outcome = turnOutcome(workflowId, await readTurnHistory(session.client, workflowId));
    if (outcome) return { outcome };
    say(`turn ${workflowId} is already running; attaching to it`);
    return { handle, taskQueue: description.taskQueue };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      say(
        `there is no turn with workflow id ${workflowId} in namespace ${session.namespace}: check the id, or give \`--model\` and \`--prompt\` to start it.`,
      );
      return 2;
    }
    say(
      `cannot read turn ${workflowId} (${messageOf(error)}); run \`model-retry turn --workflow-id ${workflowId}\` again.`,
    );
    return 3;
  }
}

/** Progress from the `attempts` and `status` queries, one at a time: attempts and waits, and each step's tools. */
async function pollTurn(
  session: Session,
  handle: WorkflowHandle,
  progress: ProgressPrinter,
  signal: AbortSignal,
): Promise<void> {
  const { connection } = session;
  const query = <T>(run: () => Promise<T>) =>
    connection.withAbortSignal(signal, () => connection.withDeadline(Date.now() + 3000, run));
  const toolsShown = new Set<number>();
  while (!signal.aborted) {
    try {
      const attempts = await query(() => handle.query(attemptsQuery));
      const status = await query(() => handle.query(turnStatusQuery));
      if (signal.aborted) break;
      progress.update(attempts, callStatusOf(status));
      if (status.phase === 'tools' && status.tools && !toolsShown.has(status.step)) {
        toolsShown.add(status.step);
        progress.note(
          `step ${status.step}: tools ${status.tools.map((t) => `${t.name} (${t.activityId})`).join(', ')}`,
        );
      }
    } catch {
      // No worker has run the turn yet, or the query timed out: followCall's worker watch says so if it lasts.
    }
    await pause(POLL_MS, signal);
  }
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

async function finish(outcome: TurnOutcome, json: boolean, streamed?: StreamPrinter): Promise<number> {
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
    else if (outcome.text)
      process.stdout.write(outcome.text.endsWith('\n') ? outcome.text : `${outcome.text}\n`);
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
