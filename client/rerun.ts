import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { validatePlan } from '../policy/index.js';
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
import { listRuns } from './list-runs.js';
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
   * The most runs the query lists (the runs of one continue-as-new chain are one workflow, read whole).
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
 * @throws RerunRefusedError when the options are refused (no model, an unknown `callId`) and
 * `InvalidRetryPlanError` for a bad plan, before anything starts; `WorkflowFailedError` when the rerun itself is
 * refused by the workflow (`InvalidRerunInput`: a budget with a candidate model that has no price).
 */
export async function rerunCalls(client: Client, options: RerunCallsOptions): Promise<RerunReport> {
  const now = Date.now();
  validatePlan(options.retry, { nowMs: now, chainStartMs: now, atSubmission: true });
  const ids = await workflowIdsOf(client, options);
  const requests: RerunRequest[] = [];
  const skipped: RerunSkipped[] = [];
  for (const workflowId of ids) {
    const found = recordedRequests(await fetchRecordedRuns(client, workflowId), options.callId);
    requests.push(...found.requests);
    skipped.push(...found.skipped);
  }
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

/**
 * The rerun's input carries every request it sends: over Temporal's payload limit as `client` stores it, the server
 * would refuse the start with a bare message, so it is refused here, saying how to make it fit.
 */
async function checkRerunSize(client: Client, input: RerunInput): Promise<void> {
  const { bytes } = await encodedPayloadSize(input, client.options.loadedDataConverter);
  if (bytes <= TEMPORAL_PAYLOAD_LIMIT_BYTES) return;
  throw new RerunRefusedError(
    `the ${input.requests.length} recorded requests take ${megabytes(bytes)} as Temporal stores them, over its ` +
      `2 MB limit on one payload: rerun fewer at once (\`--limit\`, \`--call\`), ${PAYLOAD_STORE_FIX}`,
  );
}

async function workflowIdsOf(client: Client, options: RerunCallsOptions): Promise<string[]> {
  const given = options.workflowIds ?? [];
  if (options.query === undefined) {
    if (given.length === 0) throw new RerunRefusedError('give the workflow ids to rerun, or a `query`');
    return [...new Set(given)];
  }
  const runs = await listRuns(client, options.query, options.limit ?? DEFAULT_QUERY_LIMIT);
  // The runs of one continue-as-new chain share their workflow id, and the chain is read whole.
  return [...new Set([...given, ...runs.map((r) => r.workflowId)])];
}
