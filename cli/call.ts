import { randomUUID } from 'node:crypto';
import { InvalidRetryPlanError } from '../policy/index.js';
import { InvalidModelCallInputError } from '../common/input-error.js';
import type { ModelCallInput } from '../common/call.js';
import { modelCallWorkflow } from '../workflows/call/model-call-workflow.js';
import { checkModelCall } from '../client/model-call-client.js';
import { startForTenant } from '../client/tenant-start.js';
import { UsageError, parseCommandArgs, runFlags } from './args.js';
import { attemptsQuery, statusQuery } from '../common/queries.js';
import { attachToCall } from './call-attach.js';
import { closedOutcome, exitCodeOf, summaryLine } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { CALL_HELP } from './help.js';
import { PLAN_FLAG_OPTIONS, planFromFlags, planRefusal } from './plan-flags.js';
import { SETTINGS_FLAG_OPTIONS, settingsFlagOf, settingsFromFlags } from './settings-flags.js';
import { BUDGET_FLAG_OPTIONS, budgetFlagOf, budgetFromFlags } from './budget-flags.js';
import { ProgressPrinter } from './progress.js';
import { outputFlagOf, outputFromFlags } from './schema-flag.js';
import { promptFromFlags, refuseOversizedCall } from './call-prompt.js';
import { followRun, printAnswer } from './follow-run.js';
import type { StreamPrinter } from './stream-print.js';
import { messageOf, say } from './session.js';
import { PART_FLAG_OPTIONS, partFlagOf, partsFromFlags, userMessageOf } from './part-flags.js';
import type { FlagPart } from './part-flags.js';
import {
  REQUEST_FLAG_OPTIONS,
  TOOL_CHOICE_OPTION,
  headersFromFlags,
  providerOptionsFromFlag,
  requestFlagOf,
  toolChoiceFromFlag,
} from './request-flags.js';

const CALL_OPTIONS = {
  model: { type: 'string', multiple: true },
  prompt: { type: 'string' },
  'prompt-file': { type: 'string' },
  system: { type: 'string' },
  ...PART_FLAG_OPTIONS,
  ...REQUEST_FLAG_OPTIONS,
  ...TOOL_CHOICE_OPTION,
  ...PLAN_FLAG_OPTIONS,
  ...SETTINGS_FLAG_OPTIONS,
  ...BUDGET_FLAG_OPTIONS,
  'workflow-id': { type: 'string' },
  'task-queue': { type: 'string' },
  json: { type: 'boolean' },
  stream: { type: 'boolean' },
  'stream-batch-ms': { type: 'string' },
  'on-cut': { type: 'string' },
  schema: { type: 'string' },
} as const;

/**
 * `model-retry call`: checks the input before anything starts (exit 2), starts `modelCallWorkflow` or attaches
 * to the call with the same `--workflow-id`, follows it and prints its outcome. Exit 0 succeeded, 1 failed or
 * cancelled, 3 outcome unknown (Ctrl-C detached, or the CLI lost Temporal): the call goes on.
 */
export async function runCallCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('call', args, CALL_OPTIONS);
  if (values.help) {
    process.stdout.write(CALL_HELP);
    return 0;
  }
  const { json, taskQueue, givenId } = runFlags(values, positionals);
  const prompt = promptFromFlags(values.prompt, values['prompt-file']);
  const attachOnly = values.model === undefined && prompt === undefined && givenId !== undefined;
  const retry = planFromFlags(values);
  const stream = streamFromFlags(values.stream === true, values['stream-batch-ms'], values['on-cut']);
  const settings = settingsFromFlags(values);
  const output = outputFromFlags(values.schema);
  const budget = budgetFromFlags(values);
  const request: RequestFlags = {
    parts: partsFromFlags(values),
    providerOptions: providerOptionsFromFlag(values['provider-options']),
    headers: headersFromFlags(values.header),
    toolChoice: toolChoiceFromFlag(values['tool-choice']),
    promptFlag: values['prompt-file'] !== undefined ? '--prompt-file' : '--prompt',
    tenant: values.tenant,
  };
  let input: ModelCallInput | undefined;
  if (attachOnly) {
    if (
      retry !== undefined ||
      settings !== undefined ||
      budget !== undefined ||
      request.parts.length > 0 ||
      request.providerOptions !== undefined ||
      request.headers !== undefined ||
      request.toolChoice !== undefined ||
      request.tenant !== undefined ||
      values.system !== undefined ||
      values['stream-batch-ms'] !== undefined ||
      values['on-cut'] !== undefined ||
      output !== undefined
    ) {
      throw new UsageError('to start a call, give `--model` and `--prompt` with the other flags.');
    }
  } else {
    input = inputFromFlags(
      values.model,
      prompt,
      values.system,
      retry,
      stream,
      settings,
      output,
      budget,
      request,
    );
    if (retry === undefined) {
      say(
        'no retry plan given: exactly one attempt will be made. To retry, add `--waits 1000,5000` or ' +
          '`--backoff default`, best with `--deadline MS`; `--no-retry` says one attempt explicitly.',
      );
    }
  }
  const workflowId = givenId ?? `model-call-${randomUUID()}`;
  return followRun<CallOutcome>({
    what: 'call',
    workflowId,
    taskQueue,
    json,
    stream: stream !== undefined,
    ...(input
      ? {
          check: (session) =>
            refuseOversizedCall(session.client, input, (field) => flagOfField(field, request, prompt)),
          start: (session, options) =>
            startForTenant(
              (tenant) =>
                session.client.workflow.start(modelCallWorkflow, { ...options, ...tenant, args: [input] }),
              input.tenant,
            ),
        }
      : {}),
    attach: (session) => attachToCall(session, workflowId, input),
    async readProgress(handle, query, progress, signal) {
      const attempts = await query(() => handle.query(attemptsQuery));
      const status = await query(() => handle.query(statusQuery));
      if (!signal.aborted) progress.update(attempts, status);
    },
    closedOutcome: (_session, handle) => closedOutcome(handle),
    recorded: `call ${workflowId} has already ended; its recorded outcome follows (no new request was made)`,
    finish: (outcome, out) => finish(outcome, json, out.progress, out.printer),
    lost: (error) => `lost touch with the call (${messageOf(error)})`,
  });
}

/** What the request flags gave, and the flag the prompt came from (for refusals). */
interface RequestFlags {
  parts: FlagPart[];
  providerOptions: ModelCallInput['providerOptions'];
  headers: ModelCallInput['headers'];
  toolChoice: ModelCallInput['toolChoice'];
  promptFlag: '--prompt' | '--prompt-file';
  tenant: string | undefined;
}

function inputFromFlags(
  models: string[] | undefined,
  prompt: string | undefined,
  system: string | undefined,
  retry: ModelCallInput['retry'],
  stream: ModelCallInput['stream'],
  settings: ModelCallInput['settings'],
  output: ModelCallInput['output'],
  budget: ModelCallInput['budget'],
  request: RequestFlags,
): ModelCallInput {
  if (models === undefined || models.length === 0) {
    throw new UsageError(
      '`--model` is missing: name a backend as provider:model (e.g. `--model local:fast`); repeat it for a fallback chain.',
    );
  }
  if (prompt === undefined)
    throw new UsageError('`--prompt` is missing: give the prompt, e.g. `--prompt "Hello"`.');
  // With parts, the prompt and the parts are one user message, in the wire form the history keeps.
  const message = request.parts.length > 0 ? userMessageOf(prompt, request.parts) : undefined;
  const input: ModelCallInput = {
    model: models.length === 1 ? (models[0] as string) : models,
    ...(message !== undefined ? { messages: [message] } : { prompt }),
    ...(system !== undefined ? { system } : {}),
    ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
    ...(request.providerOptions !== undefined ? { providerOptions: request.providerOptions } : {}),
    ...(request.headers !== undefined ? { headers: request.headers } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(stream !== undefined ? { stream } : {}),
    ...(settings !== undefined ? { settings } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
  };
  try {
    checkModelCall(input);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    if (error instanceof InvalidModelCallInputError) {
      if (error.field === 'stream' && output !== undefined) {
        throw new UsageError(
          '`--stream` cannot be used with `--schema` (a streamed answer reaches you before it can be validated): leave out one of them.',
        );
      }
      const flag = flagOfField(error.field, request, prompt);
      throw new UsageError(`\`${flag}\`${error.message.slice(error.message.indexOf(':'))}`);
    }
    throw error;
  }
  // Already plain JSON: the message is in wire form, the provider options came from JSON.
  return input;
}

/** The flag that set a refused input field. */
function flagOfField(field: string, request: RequestFlags, prompt: string | undefined): string {
  if (field === 'prompt') return request.promptFlag;
  return (
    outputFlagOf(field) ??
    settingsFlagOf(field) ??
    budgetFlagOf(field) ??
    requestFlagOf(field) ??
    partFlagOf(field, { flag: request.promptFlag, text: prompt ?? '' }, request.parts) ??
    (field === 'stream.onCut'
      ? '--on-cut'
      : field.startsWith('stream')
        ? '--stream-batch-ms'
        : `--${field.replace(/\[\d+\]$/, '')}`)
  );
}

/**
 * `--stream`, `--stream-batch-ms` and `--on-cut` as the input's `stream`; the batch interval or `--on-cut` alone
 * implies `--stream`.
 */
export function streamFromFlags(
  stream: boolean,
  batchMs: string | undefined,
  onCut: string | undefined,
): ModelCallInput['stream'] {
  if (onCut !== undefined && onCut !== 'stop' && onCut !== 'continue') {
    throw new UsageError(
      `\`--on-cut\` must be \`stop\` (a cut stream stops the call) or \`continue\` (the next attempt continues its text), not ${JSON.stringify(onCut)}.`,
    );
  }
  if (batchMs === undefined && onCut === undefined) return stream ? true : undefined;
  const n = batchMs === undefined ? undefined : Number(batchMs);
  if (batchMs !== undefined && (batchMs.trim() === '' || !Number.isFinite(n))) {
    throw new UsageError(
      `\`--stream-batch-ms\` must be a number of milliseconds (like 500), not ${JSON.stringify(batchMs)}.`,
    );
  }
  return {
    ...(n !== undefined ? { batchMs: n } : {}),
    ...(onCut === 'continue' ? { onCut: 'continue' as const } : {}),
  };
}

/** Prints a call's outcome: progress and answer (or JSON), then the summary line; returns the exit code. */
async function finish(
  outcome: CallOutcome,
  json: boolean,
  progress: ProgressPrinter | undefined,
  streamed: StreamPrinter | undefined,
): Promise<number> {
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
    return exitCodeOf(outcome);
  }
  const printer = progress ?? new ProgressPrinter(process.stderr);
  printer.update(outcome.attempts);
  printer.finish();
  const text = outcome.output?.text;
  const object = outcome.output?.object;
  if (streamed) await streamed.end(text ?? outcome.partialText);
  else if (object !== undefined) printAnswer(JSON.stringify(object, null, 2));
  else if (text !== undefined) printAnswer(text);
  say(summaryLine(outcome));
  return exitCodeOf(outcome);
}
