import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { ConnectionLike } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import type { temporal } from '@temporalio/proto';
import { until } from './until.js';

/** A namespace made for one test, and a client on it (over the connection it was made with). */
export interface TestNamespace {
  namespace: string;
  client: Client;
}

/**
 * Registers a namespace of its own on the run's server, `<prefix>-<8 random hex>` (one day's retention), and
 * waits until it answers a list: a new namespace takes a moment to reach every service of the server. With
 * `searchAttributes` (name -> indexed type), adds them afterwards, as an operator would (model-retry's with a
 * wrong type, or some of them missing); without, the namespace has none of them.
 */
export async function createTestNamespace(
  connection: ConnectionLike,
  prefix: string,
  searchAttributes?: Record<string, temporal.api.enums.v1.IndexedValueType>,
): Promise<TestNamespace> {
  const namespace = `${prefix}-${randomUUID().slice(0, 8)}`;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  const client = new Client({ connection, namespace });
  await until(
    `the new namespace ${namespace}`,
    async () => {
      await client.workflow.list({ query: '', pageSize: 1 })[Symbol.asyncIterator]().next();
      return true;
    },
    60_000,
    200,
  );
  if (searchAttributes) await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return { namespace, client };
}
