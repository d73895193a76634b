import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes.js';
import type { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { until } from '../until.js';

/** Each RPC of a readiness check gets this long: a call to a service that is down hangs rather than fails. */
const RPC_DEADLINE_MS = 5000;
/** A readiness poll's limit: the first task of a fresh task queue, on a loaded machine. */
const POLL_DEADLINE_MS = 20_000;

async function withConnection<T>(address: string, fn: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address, connectTimeout: RPC_DEADLINE_MS });
  try {
    return await connection.withDeadline(Date.now() + RPC_DEADLINE_MS, () => fn(connection));
  } finally {
    await connection.close();
  }
}

/**
 * Registers `namespace` (one day's retention) and adds the search attributes (SQL visibility maps them to its
 * fixed slots), then waits until a workflow start on it succeeds.
 */
export async function registerNamespace(
  address: string,
  namespace: string,
  searchAttributes: SearchAttributeKey<SearchAttributeType>[],
  timeoutMs = 120_000,
): Promise<void> {
  await until(
    `the frontend at ${address} to register namespace ${namespace}`,
    () =>
      withConnection(address, async (c) => {
        await c.workflowService
          .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') })
          .catch((error: unknown) => {
            if (!/already exists|AlreadyExists/i.test(String(error))) throw error;
          });
        return true;
      }),
    timeoutMs,
    250,
  );
  const wanted: Record<string, temporal.api.enums.v1.IndexedValueType> = Object.fromEntries(
    searchAttributes.map((k) => [k.name, encodeSearchAttributeIndexedValueType(k.type) ?? 0]),
  );
  await until(
    `the search attributes on ${namespace}`,
    () =>
      withConnection(address, async (c) => {
        const { customAttributes } = await c.operatorService.listSearchAttributes({ namespace });
        const missing: typeof wanted = Object.fromEntries(
          Object.entries(wanted).filter(([name]) => customAttributes?.[name] === undefined),
        );
        if (Object.keys(missing).length === 0) return true;
        await c.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
        return undefined;
      }),
    timeoutMs,
    250,
  );
  await waitUntilServing(address, namespace, timeoutMs);
}

/**
 * Waits until the cluster serves a workflow end to end, then terminates the probe: a start succeeds (frontend,
 * history and the database answer) and its first workflow task reaches a poller (matching answers too). A start
 * alone is not enough: history takes starts while matching is still down or not yet serving, and a worker then
 * polls a cluster that never hands it a task. Used after a bring-up, a kill or a restart.
 */
export async function waitUntilServing(
  address: string,
  namespace: string,
  timeoutMs = 120_000,
): Promise<void> {
  await until(
    `the cluster at ${address} to start a workflow on ${namespace} and hand its first task to a poller`,
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: RPC_DEADLINE_MS });
      try {
        const taskQueue = `model-retry-cluster-probe-${randomUUID()}`;
        const client = new Client({ connection, namespace });
        const handle = await connection.withDeadline(Date.now() + RPC_DEADLINE_MS, () =>
          client.workflow.start('clusterProbe', { taskQueue, workflowId: `cluster-probe-${randomUUID()}` }),
        );
        try {
          const task = await connection.withDeadline(Date.now() + POLL_DEADLINE_MS, () =>
            connection.workflowService.pollWorkflowTaskQueue({
              namespace,
              taskQueue: { name: taskQueue },
              identity: 'model-retry cluster readiness probe',
            }),
          );
          return task.taskToken?.length ? true : undefined;
        } finally {
          await connection
            .withDeadline(Date.now() + RPC_DEADLINE_MS, () => handle.terminate('readiness probe'))
            .catch(() => undefined);
        }
      } finally {
        await connection.close();
      }
    },
    timeoutMs,
    250,
  );
}
