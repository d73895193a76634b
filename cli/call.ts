import { randomUUID } from 'node:crypto';
import { InvalidRetryPlanError } from '../policy/index.js';
import { InvalidModelCallInputError } from '../workflows/call/call-input.js';
import type { ModelCallInput } from '../common/call.js';
import { modelCallWorkflow } from '../workflows/call/model-call-workflow.js';
import { checkModelCall } from '../client/model-call-client.js';
import { UsageError, parseCommandArgs, runFlags } from './args.js';
import { attachToCall } from './call-attach.js';
import { followCall } from './call-follow.js';
import type { Followed } from './call-follow.js';
import { exitCodeOf, summaryLine } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { CALL_HELP } from './help.js';
import { PLAN_FLAG_OPTIONS, planFromFlags, planRefusal } from './plan-flags.js';
import { SETTINGS_FLAG_OPTIONS, settingsFlagOf, settingsFromFlags } from './settings-flags.js';
import { ProgressPrinter } from './progress.js';
import { promptFromFlags, refuseOversizedCall } from './call-prompt.js';
import { followOutputs } from './stream-print.js';
import { startOnce } from './start-once.js';
import type { StreamPrinter } from './stream-print.js';
import { messageOf, openSession } from './session.js';

const CALL_OPTIONS = {
  model: { type: 'string', multiple: true },
  prompt: { type: 'string' },
  'prompt-file': { type: 'string' },
  system: { type: 'string' },
  ...PLAN_FLAG_OPTIONS,
  ...SETTINGS_FLAG_OPTIONS,
  'workflow-id': { type: 'string' },
  'task-queue': { type: 'string' },
  json: { type: 'boolean' },
  stream: { type: 'boolean' },
  'stream-batch-ms': { type: 'string' },
} as const;

const say = (line: string) => process.stderr.write(`model-retry: ${line}\n`);

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
  const stream = streamFromFlags(values.stream === true, values['stream-batch-ms']);
  const settings = settingsFromFlags(values);
  let input: ModelCallInput | undefined;
  if (attachOnly) {
    if (
      retry !== undefined ||
      settings !== undefined ||
      values.system !== undefined ||
      values['stream-batch-ms'] !== undefined
    ) {
      throw new UsageError('to start a call, give `--model` and `--prompt` with the other flags.');
    }
  } else {
    input = inputFromFlags(values.model, prompt, values.system, retry, stream, settings);
    if (retry === undefined) {
      say(
        'no retry plan given: exactly one attempt will be made. To retry, add `--waits 1000,5000` or ' +
          '`--backoff default`, best with `--deadline MS`; `--no-retry` says one attempt explicitly.',
      );
    }
  }
  const workflowId = givenId ?? `model-call-${randomUUID()}`;
  const session = await openSession();
  try {
    if (input) await refuseOversizedCall(session.client, input, values['prompt-file'] !== undefined);
    const started = input
      ? await startOnce(
          { workflowId, taskQueue, what: 'call' },
          (options) => session.client.workflow.start(modelCallWorkflow, { ...options, args: [input] }),
          () => attachToCall(session, workflowId, input),
          say,
        )
      : await attachToCall(session, workflowId);
    if (typeof started === 'number') return started;
    if ('outcome' in started) return await finish(started.outcome, json, undefined, true);
    const { printer, progress } = followOutputs(session.client, workflowId, {
      stream: values.stream === true || values['stream-batch-ms'] !== undefined,
      json,
      say,
    });
    const warn = (line: string) => (progress ? progress.note(`model-retry: ${line}`) : say(line));
    if (!json) say(`following call ${workflowId} (task queue ${started.taskQueue}); Ctrl-C detaches`);
    const followed = await followCall({
      session,
      handle: started.handle,
      taskQueue: started.taskQueue,
      progress,
      warn,
    });
    progress?.finish();
    if (followed.kind === 'closed') return await finish(followed.outcome, json, progress, false, printer);
    return unknownOutcome(workflowId, followed, json);
  } finally {
    await session.close();
  }
}

function inputFromFlags(
  models: string[] | undefined,
  prompt: string | undefined,
  system: string | undefined,
  retry: ModelCallInput['retry'],
  stream: ModelCallInput['stream'],
  settings: ModelCallInput['settings'],
): ModelCallInput {
  if (models === undefined || models.length === 0) {
    throw new UsageError(
      '`--model` is missing: name a backend as provider:model (e.g. `--model local:fast`); repeat it for a fallback chain.',
    );
  }
  if (prompt === undefined)
    throw new UsageError('`--prompt` is missing: give the prompt, e.g. `--prompt "Hello"`.');
  const input: ModelCallInput = {
    model: models.length === 1 ? (models[0] as string) : models,
    prompt,
    ...(system !== undefined ? { system } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(stream !== undefined ? { stream } : {}),
    ...(settings !== undefined ? { settings } : {}),
  };
  try {
    checkModelCall(input);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    if (error instanceof InvalidModelCallInputError) {
      const flag =
        settingsFlagOf(error.field) ??
        (error.field.startsWith('stream') ? '--stream-batch-ms' : `--${error.field.replace(/\[\d+\]$/, '')}`);
      throw new UsageError(`\`${flag}\`${error.message.slice(error.message.indexOf(':'))}`);
    }
    throw error;
  }
  return input;
}

/** `--stream` and `--stream-batch-ms` as the input's `stream`; the batch interval alone implies `--stream`. */
function streamFromFlags(stream: boolean, batchMs: string | undefined): ModelCallInput['stream'] {
  if (batchMs === undefined) return stream ? true : undefined;
  const n = Number(batchMs);
  if (batchMs.trim() === '' || !Number.isFinite(n)) {
    throw new UsageError(
      `\`--stream-batch-ms\` must be a number of milliseconds (like 500), not ${JSON.stringify(batchMs)}.`,
    );
  }
  return { batchMs: n };
}

async function finish(
  outcome: CallOutcome,
  json: boolean,
  progress: ProgressPrinter | undefined,
  recorded: boolean,
  streamed?: StreamPrinter,
): Promise<number> {
  if (recorded) {
    say(
      `call ${outcome.workflowId} has already ended; its recorded outcome follows (no new request was made)`,
    );
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
    return exitCodeOf(outcome);
  }
  const printer = progress ?? new ProgressPrinter(process.stderr);
  printer.update(outcome.attempts);
  printer.finish();
  const text = outcome.output?.text;
  if (streamed) await streamed.end(text ?? outcome.partialText);
  else if (text !== undefined) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  say(summaryLine(outcome));
  return exitCodeOf(outcome);
}

function unknownOutcome(
  workflowId: string,
  followed: Exclude<Followed, { kind: 'closed' }>,
  json: boolean,
): number {
  const why =
    followed.kind === 'detached'
      ? 'detached (Ctrl-C does not cancel the call)'
      : `lost touch with the call (${messageOf(followed.error)})`;
  say(
    `${why}; call ${workflowId} goes on.\n` +
      `  attach again:  model-retry call --workflow-id ${workflowId}\n` +
      `  cancel it:     model-retry cancel ${workflowId}`,
  );
  if (json) {
    const reason = followed.kind === 'detached' ? 'detached' : 'connection-lost';
    process.stdout.write(`${JSON.stringify({ workflowId, status: 'unknown', reason })}\n`);
  }
  return 3;
}
