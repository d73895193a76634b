import { execFile } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The role the cluster's services log in as (trust authentication: a private instance on loopback). */
export const PG_USER = 'temporal';

/** A private PostgreSQL instance in a folder of its own, on its own port. */
export interface Postgres {
  port: number;
  /** `psql -tA -c SQL` on `database`; resolves with its output, trimmed. */
  query(database: string, sql: string): Promise<string>;
  /** Stops it at once (`pg_ctl stop -m immediate`: no shutdown checkpoint, like a crash). */
  stopNow(): Promise<void>;
  /** Starts it again on the same data and port (after `stopNow`); resolves once it accepts connections. */
  start(): Promise<void>;
  /** `stopNow`, then `start`. */
  restart(): Promise<void>;
  /** The postmaster's pid (first line of `postmaster.pid`) while it runs, for CPU readings. */
  pid(): number | undefined;
  stop(): Promise<void>;
}

/**
 * `initdb` into `dir/pgdata` and `pg_ctl start` on 127.0.0.1:`port`, with fsync off (a test database: it
 * survives process kills, not an OS crash). PostgreSQL refuses to run as root, so as root every command runs as
 * the `postgres` user (Debian's package creates it) through `runuser`.
 */
export async function startPostgres(options: {
  pgBin: string;
  dir: string;
  port: number;
}): Promise<Postgres> {
  const { pgBin, dir, port } = options;
  const data = join(dir, 'pgdata');
  const socketDir = join(dir, 'pgsocket');
  mkdirSync(socketDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error('running as root, PostgreSQL needs a `postgres` user to run as (Debian creates it)');
    });
    const uid = Number(stdout.trim());
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    for (const d of [dir, socketDir]) chownSync(d, uid, Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(pgBin, tool), ...args])
      : run(join(pgBin, tool), args);
  await pg('initdb', ['-D', data, '-U', PG_USER, '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const serverOptions = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`;
  const start = () =>
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-o', serverOptions, '-w', 'start']);
  const stop = (mode: string) => pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  await start();
  return {
    port,
    async query(database, sql) {
      const args = ['-h', '127.0.0.1', '-p', String(port), '-U', PG_USER, '-d', database, '-tA', '-c', sql];
      const { stdout } = await run(join(pgBin, 'psql'), args);
      return stdout.trim();
    },
    async stopNow() {
      await stop('immediate');
    },
    async start() {
      await start();
    },
    async restart() {
      await stop('immediate');
      await start();
    },
    pid() {
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      await stop('immediate').catch(() => undefined);
    },
  };
}
