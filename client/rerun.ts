import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { MAX_HISTORY_LIMIT, TEMPORAL_LIMITS, validatePlan } from '../policy/index.js';
import type { RetryPlan } from '../policy/index.js';
import { RERUN_MEMO_KEY, rerunInputProblem } from '../common/rerun-input.js';
import type { RerunInput, RerunRequest } from '../common/rerun-input.js';
import type { RerunReport, RerunSkipped } from '../common/rerun.js';
import { rerunWorkflow } from '../workflows/rerun/rerun-workflow.js';
import {
  PAYLOAD_STORE_FIX,
  TEMPORAL_PAYLOAD_LIMIT_BYTES,
  encodedPayloadSize,
  megabytes,
} from '../payloads/payload-size.js';
import { listWorkflowIds } from './list-runs.js';
import { fetchRecordedRuns } from './rerun-fetch.js';
import { recordedRequests, RerunRefusedError } from './rerun-requests.js';

const DEFAULT_QUERY_LIMIT = 10;

/** What to rerun, on which models, and how. */
export interface RerunCallsOptions {
  /** The recorded workflows to rerun, by id (every run of each one's continue-as-new chain). */
  workflowIds?: string[];
  /** Or the runs a visibility query finds (`list`'s query: model-retry's calls and turns), newest first. */
  query?: string;
  /**
   * The most workflows the query's runs are taken from (the runs of one continue-as-new chain, or several runs of
   * one id, count once: each workflow is read whole).
   * @default 10
   */
  limit?: number;
  /** Only this call of each workflow (`c2`); an agent turn's step k is its call `c<k>`. */
  callId?: string;
  /** Candidate models, `provider:model`: each recorded request goes to every one of them. */
  models: string[];
  /** The task queue of the workers that run the rerun and its child calls. */
  taskQueue: string;
  /** @default `rerun-<uuid>` */
  workflowId?: string;
  /** Child calls at once. @default 2 */
  concurrency?: number;
  /** Each child call's retry plan. @default one attempt */
  retry?: RetryPlan | false;
  /** The most the whole rerun may spend, in USD (needs `pricing` for every candidate in the providers file). */
  budgetUsd?: number;
  /** Called once the rerun has started, with its handle (a host may print its id, or cancel it). */
  onStarted?: (handle: WorkflowHandle<typeof rerunWorkflow>) => void;
}

/**
 * Reruns recorded model calls on other models: each call's first request, read from its history and decoded with
 * `client`'s codecs (keys and payload store, as a worker has them), is sent again to every candidate model as a
 * child call of one `rerunWorkflow`, and the answers come back side by side with the recorded ones. An agent turn
 * is rerun step by step (the candidates' tool calls are compared, never run). The recorded runs are only read.
 * A request that cannot be read (its stored payload is gone) or that is an embedding is in `skipped`, with why.
 * @throws RerunRefusedError when the options are refused (no model, an unknown `callId` of a workflow given by id,
 * nothing to rerun: the query found nothing, or every call found is skipped, with why; more child calls or history
 * than one run can hold) and
 * `InvalidRetryPlanError` for a bad plan, before anything starts; `WorkflowFailedError` when the rerun itself is
 * refused by the workflow (`InvalidRerunInput`: a budget with a candidate model that has no price).
 */
export async function rerunCalls(client: Client, options: RerunCallsOptions): Promise<RerunReport> {
  const now = Date.now();
  validatePlan(options.retry, { nowMs: now, chainStartMs: now, atSubmission: true });
  const given = new Set(options.workflowIds ?? []);
  const ids = await workflowIdsOf(client, options);
  const requests: RerunRequest[] = [];
  const skipped: RerunSkipped[] = [];
  const noCalls: string[] = [];
  for (const workflowId of ids) {
    const found = recordedRequests(await fetchRecordedRuns(client, workflowId), options.callId, {
      missingCall: given.has(workflowId) ? 'refuse' : 'skip',
    });
    requests.push(...found.requests);
    skipped.push(...found.skipped);
    if (found.requests.length === 0 && found.skipped.length === 0) noCalls.push(workflowId);
  }
  if (requests.length === 0) throw new RerunRefusedError(nothingToRerun(options, ids, skipped, noCalls));
  const input: RerunInput = {
    models: options.models,
    requests,
    skipped,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
  };
  const problem = rerunInputProblem(input);
  if (problem) throw new RerunRefusedError(problem);
  await checkRerunSize(client, input);
  const handle = await client.workflow.start(rerunWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? `rerun-${randomUUID()}`,
    args: [input],
    memo: { [RERUN_MEMO_KEY]: ids },
  });
  options.onStarted?.(handle);
  return handle.result();
}

/** Why a rerun with no request to send is refused: what was found, and why each found call was skipped. */
function nothingToRerun(
  options: RerunCallsOptions,
  ids: readonly string[],
  skipped: readonly RerunSkipped[],
  noCalls: readonly string[],
): string {
  if (ids.length === 0) return `nothing to rerun: the query found no run (${options.query ?? ''})`;
  const shown = 10;
  const reasons = [
    ...noCalls.map((id) => `workflow ${id} made no model call`),
    ...skipped.map((s) => `${s.source.callId} of ${s.source.workflowId}: ${s.reason}`),
  ];
  const more = reasons.length > shown ? `; and ${reasons.length - shown} more` : '';
  return `nothing to rerun: ${reasons.slice(0, shown).join('; ')}${more}`;
}

/**
 * The rerun's input carries every request it sends: over Temporal's payload limit as `client` stores it, the server
 * would refuse the start with a bare message, so it is refused here, saying how to make it fit. Each child's start
 * records its request again in the rerun's history, once per model: past Temporal's history size the run would be
 * terminated midway, so that is refused too.
 */
async function checkRerunSize(client: Client, input: RerunInput): Promise<void> {
  const { bytes } = await encodedPayloadSize(input, client.options.loadedDataConverter);
  if (bytes > TEMPORAL_PAYLOAD_LIMIT_BYTES)
    throw new RerunRefusedError(
      `the ${input.requests.length} recorded requests take ${megabytes(bytes)} as Temporal stores them, over its ` +
        `2 MB limit on one payload: rerun fewer at once (\`--limit\`, \`--call\`), ${PAYLOAD_STORE_FIX}`,
    );
  const children = bytes * input.models.length;
  if (bytes + children > MAX_HISTORY_LIMIT.bytes)
    throw new RerunRefusedError(
      `the ${input.requests.length} recorded requests, sent to ${input.models.length} models, put about ` +
        `${megabytes(bytes + children)} into the rerun's history (each child's start records its request), past ` +
        `Temporal's ${megabytes(TEMPORAL_LIMITS.historyBytes)} limit of one run: rerun fewer requests or models at once`,
    );
}

async function workflowIdsOf(client: Client, options: RerunCallsOptions): Promise<string[]> {
  const given = options.workflowIds ?? [];
  if (options.query === undefined) {
    if (given.length === 0) throw new RerunRefusedError('give the workflow ids to rerun, or a `query`');
    return [...new Set(given)];
  }
  // The runs of one continue-as-new chain share their workflow id, and the chain is read whole: the limit counts
  // workflows, so the listing goes on until it has that many different ids.
  const found = await listWorkflowIds(client, options.query, options.limit ?? DEFAULT_QUERY_LIMIT);
  return [...new Set([...given, ...found])];
}
