import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../../common/search-attributes.js';
import { freePort } from '../../../worker/free-port.js';
import { PERSISTENCE, SERVICES, serverConfig, testDynamicConfig } from './config.js';
import type { ClusterPorts, Service } from './config.js';
import { PG_USER, startPostgres } from './postgres.js';
import type { Postgres } from './postgres.js';
import { clusterTools } from './tools.js';
import type { ClusterTools } from './tools.js';
import { registerNamespace, waitUntilServing } from './namespace.js';
import { until } from '../until.js';

const run = promisify(execFile);

/** A Temporal cluster on a private PostgreSQL, one process per service. */
export interface Cluster {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  /** The folder with the config, the logs and the database (removed by `stop`). */
  dir: string;
  postgres: Postgres;
  /** `kill -9` one service and wait until it is gone. */
  kill9(service: Service): Promise<void>;
  /** Starts a service that was killed again, on the same ports and database. */
  start(service: Service): Promise<void>;
  /** Whether a service's process is running. */
  isRunning(service: Service): boolean;
  /** The running services' pids and PostgreSQL's postmaster pid (the bench reads their CPU time). */
  pids(): { services: number[]; postgres?: number };
  /** Waits until the frontend answers and the namespace serves a workflow start (after a kill or a restart). */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** @default 'default' */
  namespace?: string;
  tools?: ClusterTools;
}

const CONFIG_ENV = 'cluster';

/**
 * Brings up a cluster with no Docker: PostgreSQL in a temp folder on its own port, the schemas applied with
 * Temporal's SQL tool, history started alone first (on a fresh database the services race to write the cluster
 * metadata, and the loser never starts), then matching, frontend and the internal worker, the namespace
 * registered and model-retry's search attributes added (SQL visibility). Resolves when a workflow start succeeds
 * and its first task reaches a poller, with every service still running.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const tools = options.tools ?? clusterTools();
  const namespace = options.namespace ?? 'default';
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-cluster-'));
  const ports = await allocatePorts();
  const processes = new Map<Service, ChildProcess>();
  let postgres: Postgres | undefined;
  const stopAll = async () => {
    await Promise.all(SERVICES.map((s) => killService(processes, s)));
    await postgres?.stop();
  };
  try {
    postgres = await startPostgres({ pgBin: tools.pgBin, dir, port: ports.postgres });
    await applySchemas(tools, ports.postgres);
    mkdirSync(join(dir, 'config'));
    const dynamicConfig = join(dir, 'config', 'dynamicconfig.yaml');
    writeFileSync(dynamicConfig, stringify(testDynamicConfig()));
    writeFileSync(join(dir, 'config', `${CONFIG_ENV}.yaml`), stringify(serverConfig(ports, dynamicConfig)));
    const launch = (service: Service) => processes.set(service, spawnService(tools, dir, service));
    launch('history');
    const pg = postgres;
    await until('history to write the cluster metadata', async () =>
      Number(await pg.query(PERSISTENCE.database, 'select count(*) from cluster_metadata_info')) > 0
        ? true
        : undefined,
    );
    for (const s of SERVICES.filter((s) => s !== 'history')) launch(s);
    const address = `127.0.0.1:${ports.grpc.frontend}`;
    await registerNamespace(address, namespace, [...SEARCH_ATTRIBUTES]);
    const exited = SERVICES.filter((s) => !isRunning(processes.get(s)));
    if (exited.length > 0)
      throw new Error(`${exited.join(', ')} exited during the bring-up (see <service>.log)`);
    return {
      address,
      namespace,
      dir,
      postgres,
      kill9: (service) => killService(processes, service),
      async start(service) {
        if (isRunning(processes.get(service))) throw new Error(`${service} is already running`);
        launch(service);
      },
      isRunning: (service) => isRunning(processes.get(service)),
      pids() {
        const running = SERVICES.map((s) => processes.get(s)).filter((c) => isRunning(c));
        const pg = postgres?.pid();
        return {
          services: running.map((c) => c?.pid).filter((p): p is number => p !== undefined),
          ...(pg !== undefined ? { postgres: pg } : {}),
        };
      },
      waitUntilServing: (timeoutMs) => waitUntilServing(address, namespace, timeoutMs),
      async stop() {
        await stopAll();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    // The folder is kept when the bring-up fails: its logs say why.
    throw new Error(`the cluster did not come up (logs in ${dir}): ${String(error)}`, { cause: error });
  }
}

async function allocatePorts(): Promise<ClusterPorts> {
  const perService = async (pick: () => Promise<number>) => {
    const ports: Partial<Record<Service, number>> = {};
    for (const s of SERVICES) ports[s] = await pick();
    return ports as Record<Service, number>;
  };
  return {
    postgres: await freePort(),
    frontendHttp: await freePort(),
    grpc: await perService(freePort),
    membership: await perService(freeLowPort),
  };
}

/**
 * A free port below 32768: the SQL membership table keeps a member's port as a `smallint`, so a membership port
 * from the ephemeral range (what `freePort` gives) makes every service fail at start.
 */
async function freeLowPort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port below 32768');
}

/** `create-database`, `setup-schema -v 0.0`, `update-schema` for the default store and for visibility. */
async function applySchemas(tools: ClusterTools, pgPort: number): Promise<void> {
  const env = {
    ...process.env,
    SQL_PLUGIN: PERSISTENCE.plugin,
    SQL_HOST: '127.0.0.1',
    SQL_PORT: String(pgPort),
    SQL_USER: PG_USER,
    SQL_PASSWORD: 'temporal',
  };
  const stores = [
    [PERSISTENCE.database, 'temporal'],
    [PERSISTENCE.visibilityDatabase, 'visibility'],
  ] as const;
  for (const [database, schema] of stores) {
    const sql = (...args: string[]) => run(tools.sqlTool, ['--db', database, ...args], { env });
    await sql('create-database');
    await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '-d', join(tools.schemaDir, schema, 'versioned'));
  }
}

function spawnService(tools: ClusterTools, dir: string, service: Service): ChildProcess {
  const log = createWriteStream(join(dir, `${service}.log`), { flags: 'a' });
  const child = spawn(
    tools.server,
    [
      '--root',
      dir,
      '--config',
      'config',
      '--env',
      CONFIG_ENV,
      '--allow-no-auth',
      'start',
      '--service',
      service,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

function isRunning(child: ChildProcess | undefined): boolean {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

async function killService(processes: Map<Service, ChildProcess>, service: Service): Promise<void> {
  const child = processes.get(service);
  if (!child || !isRunning(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
