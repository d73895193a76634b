import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isGrpcServiceError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidRetryPlanError } from '../policy/index.js';
import { rerunCalls } from '../client/rerun.js';
import { formatRerunReport } from '../client/rerun-format.js';
import { writeRerunHtml } from '../client/rerun-html.js';
import { RerunRefusedError } from '../client/rerun-requests.js';
import type { RerunCallsOptions } from '../client/rerun.js';
import { INVALID_RERUN_INPUT, MAX_RERUN_CONCURRENCY } from '../common/rerun-input.js';
import { resolveTaskQueue } from '../worker/config.js';
import { UsageError, parseCommandArgs } from './args.js';
import { RERUN_HELP } from './help.js';
import { PLAN_FLAG_OPTIONS, planFromFlags, planRefusal } from './plan-flags.js';
import { openSession, say } from './session.js';

const RERUN_OPTIONS = {
  model: { type: 'string', multiple: true },
  call: { type: 'string' },
  query: { type: 'string' },
  limit: { type: 'string' },
  concurrency: { type: 'string' },
  'budget-usd': { type: 'string' },
  json: { type: 'boolean' },
  html: { type: 'string' },
  'task-queue': { type: 'string' },
  'workflow-id': { type: 'string' },
  ...PLAN_FLAG_OPTIONS,
} as const;

/**
 * `model-retry rerun`: the recorded calls of the given workflows (or of the runs `--query` finds) sent again to
 * each `--model`, as one rerun workflow with a child call per request and model; prints each pair and the totals
 * per model. Exit 0 when the rerun ran (whatever the candidates answered), 2 refused input, 1 otherwise.
 */
export async function runRerunCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('rerun', args, RERUN_OPTIONS);
  if (values.help) {
    process.stdout.write(RERUN_HELP);
    return 0;
  }
  const options = rerunOptions(values, positionals);
  if (values.html !== undefined) await checkHtmlPath(values.html);
  const session = await openSession();
  try {
    const report = await rerunCalls(session.client, {
      ...options,
      onStarted: (handle) => {
        if (values.json !== true) say(`rerun ${handle.workflowId} started; waiting for its calls`);
      },
    });
    // The report is printed before the page is written: a write that fails late loses nothing that was paid for.
    if (values.json === true) console.log(JSON.stringify(report, null, 2));
    else process.stdout.write(formatRerunReport(report));
    if (values.html !== undefined) {
      await writeRerunHtml(report, values.html);
      if (values.json !== true) say(`the report is in ${values.html}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    if (error instanceof RerunRefusedError) throw new UsageError(error.message);
    const NOT_FOUND = 5;
    if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === NOT_FOUND))
      throw new UsageError(`a workflow to rerun is not in namespace ${session.namespace}: ${error.message}`);
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === INVALID_RERUN_INPUT) {
      process.stderr.write(`model-retry rerun: the rerun was refused: ${cause.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await session.close();
  }
}

/**
 * `--html FILE` is checked before the rerun starts (its folder exists and can be written, it is not a folder), so a
 * mistyped path never costs a paid rerun.
 */
async function checkHtmlPath(file: string): Promise<void> {
  if (file.trim() === '') throw new UsageError('`--html` needs the path of the page to write');
  const dir = dirname(resolve(file));
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
    await access(dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `\`--html\` ${file}: its folder ${dir} cannot be written (${(error as Error).message}); give a path in a folder that exists`,
    );
  }
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory())
    throw new UsageError(`\`--html\` ${file} is a folder: give the path of a file`);
}

function rerunOptions(
  values: {
    model?: string[] | undefined;
    call?: string | undefined;
    query?: string | undefined;
    limit?: string | undefined;
    concurrency?: string | undefined;
    'budget-usd'?: string | undefined;
    'task-queue'?: string | undefined;
    'workflow-id'?: string | undefined;
  } & Parameters<typeof planFromFlags>[0],
  positionals: string[],
): RerunCallsOptions {
  const models = values.model ?? [];
  if (models.length === 0) throw new UsageError('give at least one `--model provider:model` to rerun on');
  if (positionals.length === 0 && values.query === undefined)
    throw new UsageError('give the workflow id to rerun (`model-retry rerun ID`) or `--query "..."`');
  if (values.limit !== undefined && values.query === undefined)
    throw new UsageError('`--limit` goes with `--query`');
  if (values.call !== undefined && !/^c[1-9]\d*$/.test(values.call))
    throw new UsageError("`--call` names a call as `c1`, `c2`, ... (an agent turn's step k is `c<k>`)");
  const limit = wholeNumber(values.limit, '--limit', 1, 1000);
  const concurrency = wholeNumber(values.concurrency, '--concurrency', 1, MAX_RERUN_CONCURRENCY);
  const budgetUsd = positiveNumber(values['budget-usd'], '--budget-usd');
  let retry: RerunCallsOptions['retry'];
  try {
    retry = planFromFlags(values);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) throw new UsageError(planRefusal(error));
    throw error;
  }
  const workflowId = values['workflow-id'];
  if (workflowId !== undefined && workflowId.trim() === '')
    throw new UsageError('`--workflow-id` is empty: give an id, or leave the flag out for a new one.');
  return {
    models,
    taskQueue: resolveTaskQueue(values['task-queue']),
    ...(positionals.length > 0 ? { workflowIds: positionals } : {}),
    ...(values.query !== undefined ? { query: values.query } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(values.call !== undefined ? { callId: values.call } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(workflowId !== undefined ? { workflowId } : {}),
  };
}

function wholeNumber(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw new UsageError(
      `\`${flag}\` must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`,
    );
  return n;
}

function positiveNumber(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`\`${flag}\` must be a positive number of USD (got ${JSON.stringify(text)})`);
  return n;
}
