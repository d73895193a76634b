import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const TICKS = 100;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
export function cpuSeconds(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state is field 3 of stat(5), utime 14 and stime 15.
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

function statusKb(pid: number, key: string): number | undefined {
  const status = read(`/proc/${pid}/status`);
  const m = status ? new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status) : null;
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Resident memory of a process now (VmRSS), in bytes. */
export function rssBytes(pid: number): number | undefined {
  return statusKb(pid, 'VmRSS');
}

/** Peak resident memory of a process (VmHWM), in bytes. */
export function peakRssBytes(pid: number): number | undefined {
  return statusKb(pid, 'VmHWM');
}

/**
 * The pid of the Temporal dev server listening on `port`: a process whose command line is `... server
 * start-dev ... --port <port>` (the bench's own child, started by the Temporal runtime).
 */
export function findDevServerPid(port: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const args = read(`/proc/${entry}/cmdline`)?.split('\0') ?? [];
    const at = args.indexOf('--port');
    if (args.includes('start-dev') && at >= 0 && args[at + 1] === String(port)) return Number(entry);
  }
  return undefined;
}

/** Each live process's parent, from /proc (empty where /proc is not there). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (stat) out.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  return out;
}

/**
 * CPU seconds a process and all its descendants have used so far: its own, its children that already exited
 * (cutime and cstime), and every live descendant's. PostgreSQL works in one backend process per connection,
 * which the postmaster's own time does not include.
 */
export function treeCpuSeconds(pid: number): number | undefined {
  const ppid = parents();
  const own = (p: number): number | undefined => {
    const stat = read(`/proc/${p}/stat`);
    if (!stat) return undefined;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 of stat(5).
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS;
  };
  const walk = (p: number): number =>
    (own(p) ?? 0) + [...ppid].filter(([, parent]) => parent === p).reduce((n, [child]) => n + walk(child), 0);
  return own(pid) === undefined ? undefined : walk(pid);
}
