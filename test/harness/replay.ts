import { readdirSync, readFileSync } from 'node:fs';
import { promiseHooks } from 'node:v8';
import { join } from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { BundleOptions, ReplayWorkerOptions, WorkflowBundle } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { expect, inject } from 'vitest';
import { workflowsPath } from '../../worker/worker.js';
import { quietBundleLogger } from './quiet.js';

/**
 * The workflow bundle of `workflowsPath` (by default the worker's, `workflowsPath()`), built quietly; with
 * `webpackConfigHook`, as the product builds it (`modelRetryWebpackConfigHook()`).
 */
export function bundleForReplay(
  options: Pick<BundleOptions, 'webpackConfigHook'> & { workflowsPath?: string } = {},
): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? workflowsPath(),
    logger: quietBundleLogger,
    ...(options.webpackConfigHook ? { webpackConfigHook: options.webpackConfigHook } : {}),
  });
}

/** The history recorded in `file` (a JSON export), to replay as `workflowId`. */
export function readHistory(file: string, workflowId: string): HistoryAndWorkflowId {
  return { workflowId, history: JSON.parse(readFileSync(file, 'utf8')) as unknown };
}

/** Every recorded history in `dir` (its `.json` files, by name), each replayed as `<prefix>-<file name>`. */
export function readHistories(dir: string, prefix: string): HistoryAndWorkflowId[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => readHistory(join(dir, file), `${prefix}-${file.replace(/\.json$/, '')}`));
}

/** Replays `histories` with `options` (a bundle of its own, a data converter); every run's id and error. */
export async function replayResults(
  options: ReplayWorkerOptions,
  histories: Iterable<HistoryAndWorkflowId>,
): Promise<{ workflowId: string; error?: Error }[]> {
  const results: { workflowId: string; error?: Error }[] = [];
  for await (const r of Worker.runReplayHistories(options, histories)) {
    results.push({ workflowId: r.workflowId, ...(r.error ? { error: r.error } : {}) });
  }
  return results;
}

/** The runs of `results` that failed, as `<workflowId>: <error>`: empty when every history replayed. */
export function replayFailures(results: { workflowId: string; error?: Error }[]): string[] {
  return results.filter((r) => r.error).map((r) => `${r.workflowId}: ${String(r.error)}`);
}

/**
 * Replays recorded histories against the current workflow bundle: any nondeterminism fails the test run.
 * Encrypted histories need the `dataConverter` (and the bundle) their workers had.
 */
export async function replayAll(
  histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[],
  options: { dataConverter?: DataConverter; workflowBundlePath?: string } = {},
) {
  const results = await replayResults(
    {
      workflowBundle: { codePath: options.workflowBundlePath ?? inject('workflowBundlePath') },
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    },
    histories,
  );
  expect(replayFailures(results)).toEqual([]);
}

/** The first frame of the project's own workflow code on a stack (source-mapped by Temporal's sandbox). */
const OWN_FRAME = /\/(workflows\/[^):]+):\d+/;

/**
 * Replays `history` and counts the workflow promises whose nearest own frame is in a file under `dir` (e.g.
 * `workflows/call/`), by file: each costs a stack trace in Temporal's sandbox (its promise hook), most of a run's
 * workflow CPU beyond the floor's. Replay runs workflow code in this thread, so the hook sees them.
 */
export async function countOwnPromises(
  bundle: WorkflowBundle,
  { workflowId, history }: HistoryAndWorkflowId,
  dir: string,
): Promise<Record<string, number>> {
  const byFile: Record<string, number> = {};
  const stop = promiseHooks.onInit((promise: Promise<unknown>) => {
    // Only the workflow context's promises (their constructor is the sandbox's Promise).
    if (promise.constructor === Promise) return;
    const ContextError = promise.constructor.constructor('return Error')() as ErrorConstructor;
    const file = (new ContextError().stack ?? '')
      .split('\n')
      .slice(2)
      .map((line) => OWN_FRAME.exec(line)?.[1])
      .find((f) => f !== undefined);
    if (file?.startsWith(dir)) byFile[file] = (byFile[file] ?? 0) + 1;
  });
  try {
    await Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId);
  } finally {
    stop();
  }
  return byFile;
}
