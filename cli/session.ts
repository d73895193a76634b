import { setTimeout as sleepFor } from 'node:timers/promises';
import { Client, Connection, isGrpcServiceError } from '@temporalio/client';
import protoPackage from '@temporalio/proto';
import { loadTemporalTarget } from '../worker/connection.js';
import { dataConverterFromEnv } from '../payloads/data-converter.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../client/connection-options.js';
import { tracingFromEnv } from '../worker/tracing.js';

const proto = protoPackage.temporal;

/** A client connection for one command, made by Temporal's conventions (`TEMPORAL_ADDRESS`, profiles, ...). */
export interface Session {
  client: Client;
  connection: Connection;
  namespace: string;
  address: string;
  close(): Promise<void>;
}

/** The server could not be reached, so nothing was done there. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

/**
 * Connects through `loadTemporalTarget()` (envconfig), with the payload keys and store of the environment
 * (`dataConverterFromEnv`), so what the workers encrypt is read and written alike.
 * @throws UnreachableError when the server cannot be reached.
 */
export async function openSession(): Promise<Session> {
  const target = loadTemporalTarget();
  // Keys and store are checked before connecting: a bad setting is refused (exit 2) with nothing done.
  const dataConverter = dataConverterFromEnv();
  // The command's own spans (StartWorkflow, ...) carry the trace into the workflow through its headers.
  const tracing = tracingFromEnv();
  const address = target.connectionOptions.address ?? 'localhost:7233';
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...target.connectionOptions,
      address,
      channelArgs: LARGE_MESSAGE_CHANNEL_ARGS,
    });
  } catch (error) {
    throw new UnreachableError(
      `cannot reach Temporal at ${address} (namespace ${target.namespace}): ${messageOf(error)}. ` +
        'Set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, ...) or start a server.',
    );
  }
  const client = new Client({
    connection,
    namespace: target.namespace,
    dataConverter,
    ...(tracing ? { plugins: [tracing.plugin] } : {}),
  });
  const close = async () => {
    await connection.close();
    await tracing?.shutdown();
  };
  return { client, connection, namespace: target.namespace, address, close };
}

/**
 * Whether anything polled the task queue for workflow tasks in the last two minutes. The server remembers
 * pollers for a few minutes after a worker stops; a live worker renews its poll at least every minute.
 */
export async function hasWorkflowPoller(session: Session, taskQueue: string): Promise<boolean> {
  const response = await session.client.workflowService.describeTaskQueue({
    namespace: session.namespace,
    taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const recent = Date.now() - 120_000;
  return (response.pollers ?? []).some((p) => {
    const seconds = Number(p.lastAccessTime?.seconds ?? 0);
    return seconds === 0 || seconds * 1000 >= recent;
  });
}

/** gRPC codes with which the server certainly refused a request (so a start did not happen). */
const REFUSED_CODES = new Set([3, 5, 6, 7, 9, 12, 16]); // INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, FAILED_PRECONDITION, UNIMPLEMENTED, UNAUTHENTICATED

/** Whether `error` says the server refused the request, rather than that the answer was lost. */
export function isRefusal(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (isGrpcServiceError(e)) return REFUSED_CODES.has(e.code);
  }
  return false;
}

/** Prints one line for the user on stderr, prefixed `model-retry: ` (stdout carries only answers and JSON). */
export const say = (line: string): void => {
  process.stderr.write(`model-retry: ${line}\n`);
};

/** An error's message, one line. */
export function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** Sleeps `ms`, or less when `signal` aborts (never throws). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, { signal }).catch(() => undefined);
}
