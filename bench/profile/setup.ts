/**
 * What every profile sets up before it measures: Temporal's runtime logging errors only, then the lab
 * (test/harness/lab.ts: one dev server, the lab's workflow bundle, the loopback provider reached as
 * `local:<model>`, the connections), its dev server's metrics on a port of their own for the RPC counts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { freePort } from '../../worker/free-port.js';
import { openBenchContext } from '../../test/harness/lab.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { installQuietRuntime } from '../../test/harness/quiet.js';
import { metricsArgs } from './rpc-counts.js';

/** Where a profile writes its workflow bundle's code, when set (see `bench/profile/cpu-split.ts`). */
export const PROFILE_BUNDLE_ENV = 'MODEL_RETRY_PROFILE_BUNDLE';

/** A profile's lab; `close()` ends it. */
export interface ProfileSetup extends BenchContext {
  /** The dev server's `--metrics-port` (`rpcCounts`, `serverRequests`). */
  metricsPort: number;
  /** The lab's workflow bundle, as the product builds it. */
  bundleCode: string;
}

/** Opens the lab for a profile: the dev server in memory, or with `onDisk` on SQLite in a file, as the bench's. */
export async function startProfile(options: { onDisk?: boolean } = {}): Promise<ProfileSetup> {
  installQuietRuntime();
  const metricsPort = await freePort();
  const ctx = await openBenchContext({
    size: 'full',
    inMemory: options.onDisk !== true,
    serverArgs: metricsArgs(metricsPort),
    log: () => undefined,
  });
  const bundleCode = readFileSync(ctx.bundlePath, 'utf8');
  // For `bench/profile/cpu-split.ts`: the code the workflow thread evaluates, to map its profile's lines.
  const bundleOut = process.env[PROFILE_BUNDLE_ENV];
  if (bundleOut) writeFileSync(bundleOut, bundleCode);
  return { ...ctx, metricsPort, bundleCode };
}

/** The histories of the runs `ids` names, fetched from the server, to replay. */
export async function fetchHistories(
  client: Client,
  ids: string[],
): Promise<{ workflowId: string; history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> }[]> {
  return Promise.all(
    ids.map(async (workflowId) => ({
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );
}
