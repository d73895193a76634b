import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { AttemptRecord } from '../common/call.js';
import { fetchDecodedHistory } from './decode-history.js';
import { readCallHistory } from './history-reader.js';
import type { CallHistory } from './history-reader.js';

type History = temporal.api.history.v1.IHistory;

/** The attempts of one call (`callId`), in order. */
export interface CallAttempts {
  callId: string;
  attempts: AttemptRecord[];
}

/** Groups attempt records by `callId`, calls in the order of their first attempt (an agent turn's many calls). */
export function groupByCall(records: readonly AttemptRecord[]): CallAttempts[] {
  const calls = new Map<string, AttemptRecord[]>();
  for (const r of records) {
    const list = calls.get(r.callId);
    if (list) list.push(r);
    else calls.set(r.callId, [r]);
  }
  return [...calls].map(([callId, attempts]) => ({ callId, attempts }));
}

/**
 * Reads a chain of runs (a workflow that continued as new, oldest run first): the attempts of every run one
 * after the other (`callId`s carry across continue-as-new, so they stay unique), and the close of the last run.
 */
export function readCallHistories(histories: readonly History[]): CallHistory {
  const runs = histories.map((h) => readCallHistory(h));
  const last = runs.at(-1);
  if (!last) return { status: 'running', attempts: [] };
  return { ...last, attempts: runs.flatMap((r) => r.attempts) };
}

/** The run id a history belongs to, and the runs it continued from and as. */
export interface RunLinks {
  runId?: string;
  /** The run this one continued (as new) from. */
  previousRunId?: string;
  /** The run this one continued as, when it closed with `WorkflowExecutionContinuedAsNew`. */
  nextRunId?: string;
}

export function runLinks(history: History): RunLinks {
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const continued = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
  return {
    ...(started?.originalExecutionRunId ? { runId: started.originalExecutionRunId } : {}),
    ...(started?.continuedExecutionRunId ? { previousRunId: started.continuedExecutionRunId } : {}),
    ...(continued?.newExecutionRunId ? { nextRunId: continued.newExecutionRunId } : {}),
  };
}

/**
 * Every run of the chain `workflowId` belongs to, oldest first: starting from `runId` (default the latest run),
 * back through the runs it continued from and on through the runs it continued as. Payloads are decoded with the
 * client's codecs (`decodeHistory`).
 */
export async function fetchRunChain(client: Client, workflowId: string, runId?: string): Promise<History[]> {
  const fetch = (id?: string) => fetchDecodedHistory(client.workflow.getHandle(workflowId, id));
  const chain = [await fetch(runId)];
  for (let links = runLinks(chain[0] as History); links.previousRunId;) {
    const previous = await fetch(links.previousRunId);
    // A run started by a retry or a cron schedule also names its predecessor; only continue-as-new chains.
    if (runLinks(previous).nextRunId !== links.runId) break;
    chain.unshift(previous);
    links = runLinks(previous);
  }
  for (let next = runLinks(chain.at(-1) as History).nextRunId; next;) {
    const history = await fetch(next);
    chain.push(history);
    next = runLinks(history).nextRunId;
  }
  return chain;
}

/** Histories put in chain order, and what is missing from the chain. */
export interface OrderedRuns {
  histories: History[];
  /** One sentence per gap: a run continued from, or as, a run that is not among the histories. */
  gaps: string[];
}

/**
 * Puts exported histories (one run each) in chain order by their continue-as-new links, and names the runs
 * missing from the chain. Histories that do not link to each other keep their given order.
 */
export function orderRuns(histories: readonly History[]): OrderedRuns {
  const links = histories.map(runLinks);
  const byRun = new Map(links.map((l, i) => [l.runId, i] as const));
  const order: number[] = [];
  const heads = links
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => !l.previousRunId || !byRun.has(l.previousRunId));
  for (const { i } of heads) {
    for (let at: number | undefined = i; at !== undefined && !order.includes(at);) {
      order.push(at);
      const next: string | undefined = links[at]?.nextRunId;
      at = next ? byRun.get(next) : undefined;
    }
  }
  for (let i = 0; i < histories.length; i++) if (!order.includes(i)) order.push(i);
  const gaps: string[] = [];
  for (const i of order) {
    const l = links[i] as RunLinks;
    if (l.previousRunId && !byRun.has(l.previousRunId) && i === order[0])
      gaps.push(`run ${l.runId ?? '?'} continued from run ${l.previousRunId}, which is not among the files`);
    if (l.nextRunId && !byRun.has(l.nextRunId))
      gaps.push(`run ${l.runId ?? '?'} continued as new as run ${l.nextRunId}, which is not among the files`);
  }
  return { histories: order.map((i) => histories[i] as History), gaps };
}
