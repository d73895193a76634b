import { randomUUID } from 'node:crypto';
import { InvalidRetryPlanError } from '../policy/index.js';
import { agentTurnWorkflow } from '../workflows/turn/agent-turn.js';
import { InvalidAgentTurnInputError } from '../common/turn-input.js';
import type { AgentTurnInput } from '../common/turn.js';
import { checkAgentTurn, readTurnHistory, turnOutcome } from '../client/agent-turn-client.js';
import { startForTenant } from '../client/tenant-start.js';
import type { TurnOutcome } from '../client/agent-turn-client.js';
import { UsageError, parseCommandArgs, runFlags } from './args.js';
import { followRun } from './follow-run.js';
import { streamFromFlags } from './call.js';
import { TURN_HELP } from './help.js';
import { PLAN_FLAG_OPTIONS, planFromFlags, planRefusal } from './plan-flags.js';
import { say } from './session.js';
import { attachToTurn, finishTurn, turnProgressReader } from './turn-outcome.js';
import { SETTINGS_FLAG_OPTIONS, settingsFlagOf, settingsFromFlags } from './settings-flags.js';
import type { SettingsFlagValues } from './settings-flags.js';
import { BUDGET_FLAG_OPTIONS, budgetFlagOf, budgetFromFlags } from './budget-flags.js';
import type { BudgetFlagValues } from './budget-flags.js';
import { PART_FLAG_OPTIONS, partFlagOf, partsFromFlags, userMessageOf } from './part-flags.js';
import type { PartFlagValues } from './part-flags.js';
import {
  REQUEST_FLAG_OPTIONS,
  headersFromFlags,
  providerOptionsFromFlag,
  requestFlagOf,
} from './request-flags.js';

const TURN_OPTIONS = {
  model: { type: 'string', multiple: true },
  prompt: { type: 'string' },
  system: { type: 'string' },
  ...PART_FLAG_OPTIONS,
  ...REQUEST_FLAG_OPTIONS,
  tool: { type: 'string', multiple: true },
  'max-steps': { type: 'string' },
  ...PLAN_FLAG_OPTIONS,
  ...SETTINGS_FLAG_OPTIONS,
  ...BUDGET_FLAG_OPTIONS,
  'workflow-id': { type: 'string' },
  'task-queue': { type: 'string' },
  json: { type: 'boolean' },
  stream: { type: 'boolean' },
  'on-cut': { type: 'string' },
} as const;

/** The turn input's fields as the flags that set them, for refusals. */
const FLAG_OF: Record<string, string> = {
  tools: '--tool',
  maxSteps: '--max-steps',
  messages: '--prompt',
  'stream.onCut': '--on-cut',
};

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
  if (attachOnly && values['on-cut'] !== undefined) {
    throw new UsageError('`--on-cut` is for a new turn: give `--model` and `--prompt` with it.');
  }
  const input = attachOnly ? undefined : inputFromFlags(values);
  const workflowId = givenId ?? `agent-turn-${randomUUID()}`;
  return followRun<TurnOutcome>({
    what: 'turn',
    workflowId,
    taskQueue,
    json,
    stream: values.stream === true || values['on-cut'] !== undefined,
    ...(input
      ? {
          start: (session, options) =>
            startForTenant(
              (tenant) =>
                session.client.workflow.start(agentTurnWorkflow, { ...options, ...tenant, args: [input] }),
              input.tenant,
            ),
        }
      : {}),
    attach: (session) => attachToTurn(session, workflowId),
    readProgress: turnProgressReader(),
    closedOutcome: async (session) =>
      turnOutcome(workflowId, await readTurnHistory(session.client, workflowId)),
    recorded: `turn ${workflowId} has already ended; its recorded outcome follows (nothing new was started)`,
    finish: (outcome, out) => finishTurn(outcome, json, out.printer),
    lost: () => 'lost touch with the turn',
  });
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
  const timing = planFromFlags({ deadline, reserve }) || {};
  const budget = budgetFromFlags(values as BudgetFlagValues);
  const maxSteps = values['max-steps'];
  const steps = typeof maxSteps === 'string' ? Number(maxSteps) : undefined;
  if (steps !== undefined && !Number.isFinite(steps)) {
    throw new UsageError(`\`--max-steps\` must be a whole number, not ${JSON.stringify(maxSteps)}.`);
  }
  const tools = values.tool as string[] | undefined;
  const settings = settingsFromFlags(values as SettingsFlagValues);
  const parts = partsFromFlags(values as PartFlagValues);
  const providerOptions = providerOptionsFromFlag(values['provider-options'] as string | undefined);
  const headers = headersFromFlags(values.header as string[] | undefined);
  const prompt = values.prompt;
  // With parts, the prompt and the parts are one user message, in the wire form the history keeps (so the turn's
  // size check measures what Temporal stores).
  const message = parts.length > 0 ? userMessageOf(prompt, parts) : undefined;
  const input: AgentTurnInput = {
    model: models.length === 1 ? (models[0] as string) : models,
    ...(message !== undefined ? { messages: [message] } : { prompt }),
    ...(typeof values.system === 'string' ? { system: values.system } : {}),
    ...(providerOptions !== undefined ? { providerOptions } : {}),
    ...(headers !== undefined ? { headers } : {}),
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(steps !== undefined ? { maxSteps: steps } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(timing.deadlineInMs !== undefined ? { deadlineInMs: timing.deadlineInMs } : {}),
    ...(timing.reserveMs !== undefined ? { reserveMs: timing.reserveMs } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...streamOfFlags(values.stream === true, values['on-cut'] as string | undefined),
    ...(settings !== undefined ? { settings } : {}),
    ...(typeof values.tenant === 'string' ? { tenant: values.tenant } : {}),
  };
  try {
    checkAgentTurn(input);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    if (error instanceof InvalidAgentTurnInputError) {
      const field = error.field.replace(/\[\d+\]$/, '');
      const flag =
        settingsFlagOf(error.field) ??
        budgetFlagOf(error.field) ??
        requestFlagOf(error.field) ??
        (parts.length > 0 ? partFlagOf(error.field, { flag: '--prompt', text: prompt }, parts) : undefined) ??
        FLAG_OF[field] ??
        `--${field}`;
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

/** `--stream` and `--on-cut` as the turn's `stream` (what each of its model calls does). */
function streamOfFlags(stream: boolean, onCut: string | undefined): Pick<AgentTurnInput, 'stream'> {
  const given = streamFromFlags(stream, undefined, onCut);
  return given === undefined ? {} : { stream: given };
}
