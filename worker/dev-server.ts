import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes.js';
import { freePort } from './free-port.js';

export interface DevServerOptions {
  /** SQLite file that keeps workflows across restarts; omit for an in-memory server. */
  dbFilename?: string;
  /** Serve the Temporal Web UI (on a free port unless `uiPort` is given). @default false */
  ui?: boolean;
  uiPort?: number;
  /** gRPC port. @default a free port */
  port?: number;
  namespace?: string;
  /**
   * More arguments for `temporal server start-dev`, e.g. dynamic config for a test:
   * `['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=40']`.
   */
  extraArgs?: string[];
  /**
   * How far ahead the server's timer queue looks (`history.timerProcessorMaxTimeShift`), in ms: a timer due
   * sooner than this fires only this long after it was set. Temporal's own default is 1 s, so a 250 ms wait
   * would fire about a second late; one process has no clock skew to allow for. @default 10
   */
  timerMaxTimeShiftMs?: number;
  /**
   * Turn on Temporal's task fairness (`FAIRNESS_ARGS`). Off only to measure what fairness changes (the tenants
   * benchmark's side without it). @default true
   */
  fairness?: boolean;
}

/** The dev server's timer look-ahead (see `DevServerOptions.timerMaxTimeShiftMs`). */
export const DEV_TIMER_MAX_TIME_SHIFT_MS = 10;

/**
 * The `temporal server start-dev` arguments that set the timer queue's look-ahead: a dynamic config value,
 * whose value is JSON (a duration string).
 */
export function timerShiftArgs(ms: number = DEV_TIMER_MAX_TIME_SHIFT_MS): string[] {
  if (!Number.isInteger(ms) || ms < 1) {
    throw new RangeError(`\`timerMaxTimeShiftMs\` must be a whole number of ms, at least 1 (got ${ms})`);
  }
  return ['--dynamic-config-value', `history.timerProcessorMaxTimeShift="${ms}ms"`];
}

/**
 * The `temporal server start-dev` arguments that turn on Temporal's task fairness (`matching.enableFairness`,
 * which implies its new matcher): a tenant's workflow and activity tasks carry its fairness key and weight, and a
 * backlogged task queue is served by weight, not first come first served. The dev server leaves it off.
 */
export const FAIRNESS_ARGS: readonly string[] = ['--dynamic-config-value', 'matching.enableFairness=true'];

export interface DevServer {
  /** host:port of the frontend, for `TEMPORAL_ADDRESS` and `NativeConnection.connect`. */
  address: string;
  namespace: string;
  uiUrl?: string;
  env: TestWorkflowEnvironment;
  stop(): Promise<void>;
}

/**
 * The Temporal CLI binary to run: `TEMPORAL_CLI_PATH` (set by scripts/toolchain.sh), else the SDK's own download.
 */
export function devServerExecutable(env: NodeJS.ProcessEnv = process.env): EphemeralServerExecutable {
  const path = env.TEMPORAL_CLI_PATH;
  return path ? { type: 'existing-path', path } : { type: 'cached-download' };
}

/**
 * Starts a Temporal dev server (the Temporal CLI's `server start-dev`) through `@temporalio/testing`, with
 * model-retry's search attributes registered, short timers honoured on time (`timerMaxTimeShiftMs`) and task
 * fairness on (`FAIRNESS_ARGS`). Used by
 * the demo, the tests and the benchmarks.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  for (let tryNo = 1; ; tryNo += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      // Temporal's SDK gives the server a fixed 5 s to open its port, then kills it: on a loaded machine the
      // server can need longer, so a start that timed out is tried again (the killed server left nothing behind).
      const timedOut = error instanceof Error && /did not start within/.test(error.message);
      if (!timedOut || tryNo >= START_TRIES) throw error;
    }
  }
}

/** How many times a start that timed out is tried. */
const START_TRIES = 3;

async function startOnce(options: DevServerOptions): Promise<DevServer> {
  const dbFilename = options.dbFilename ? resolve(options.dbFilename) : undefined;
  if (dbFilename) mkdirSync(dirname(dbFilename), { recursive: true });
  const port = options.port ?? (await freePort());
  const uiPort = options.ui ? (options.uiPort ?? (await freePort())) : undefined;
  const namespace = options.namespace ?? 'default';
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: devServerExecutable(),
      ip: '127.0.0.1',
      port,
      namespace,
      ...(dbFilename ? { dbFilename } : {}),
      extraArgs: [
        ...(dbFilename ? ['--sqlite-pragma', 'journal_mode=WAL'] : []),
        ...timerShiftArgs(options.timerMaxTimeShiftMs),
        ...(options.fairness === false ? [] : FAIRNESS_ARGS),
        ...(options.extraArgs ?? []),
      ],
      ...(uiPort ? { ui: true, uiPort } : { ui: false }),
      searchAttributes: [...SEARCH_ATTRIBUTES],
    },
  });
  return {
    address: env.address,
    namespace,
    ...(uiPort ? { uiUrl: `http://127.0.0.1:${uiPort}` } : {}),
    env,
    stop: () => env.teardown(),
  };
}
