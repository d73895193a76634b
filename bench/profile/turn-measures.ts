/**
 * What `bench/profile/turns.ts` measures besides CPU per turn: replay CPU per turn, the dev server's RPCs by
 * operation, this process's CPU by kind of thread, and one turn's history and requests taken apart.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { eventTypeName } from '../../client/history-format.js';
import { fetchHistories } from './setup.js';

/** The floor, model-retry's turn, and the contract's floor (the floor + the marker and the stop's search attributes). */
export type Side = 'floor' | 'ours' | 'contract';

/**
 * Replays each side's turns of the last round, three rounds interleaved: CPU per turn (a replay worker runs the
 * workflow code in this thread: no activities, no server). `PROFILE_TURNS_SAVE=<dir>` writes the histories for
 * `bench/profile/replay-turns.ts`.
 */
export async function replayRounds(client: Client, code: string, ids: Map<Side, string[]>): Promise<void> {
  const histories = new Map<Side, Awaited<ReturnType<typeof fetchHistories>>>();
  for (const [side, some] of ids) histories.set(side, await fetchHistories(client, some));
  const save = process.env.PROFILE_TURNS_SAVE;
  if (save) {
    for (const [side, hs] of histories) {
      const json = hs.map(
        (h) => `{"workflowId":${JSON.stringify(h.workflowId)},"history":${historyToJSON(h.history)}}`,
      );
      writeFileSync(join(save, `${side}.json`), `[${json.join(',')}]`);
    }
  }
  for (let r = 0; r < 4; r++) {
    const line: string[] = [];
    for (const [side, hs] of histories) {
      const cpu0 = process.cpuUsage();
      for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, hs)) {
        if (result.error) throw result.error;
      }
      const cpu = process.cpuUsage(cpu0);
      line.push(`${side} ${((cpu.user + cpu.system) / 1000 / hs.length).toFixed(1)} ms`);
    }
    // The first round warms the replay worker up: not shown.
    if (r > 0) console.log(`replay round ${r} (CPU per turn): ${line.join(' | ')}`);
  }
}

/** The dev server's requests so far by operation (its `service_requests` counter). */
export async function serverRequests(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('service_requests{')) continue;
    const op = /operation="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (op) out.set(op, (out.get(op) ?? 0) + value);
  }
  return out;
}

/**
 * This process's CPU (ms) by kind of thread, from /proc: the main thread (client, activities, provider), the
 * workflow threads, the Rust core's (tokio) threads, V8's helpers (GC), libuv's pool and the rest.
 */
export function threadCpu(): Map<string, number> {
  const tick = 10; // ms per clock tick (USER_HZ = 100 on Linux)
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      const kind =
        comm === 'MainThread'
          ? 'main'
          : comm === 'WorkerThread'
            ? 'workflow'
            : comm.startsWith('tokio')
              ? 'core'
              : comm === 'V8Worker'
                ? 'v8'
                : comm.startsWith('libuv')
                  ? 'libuv'
                  : 'other';
      out.set(kind, (out.get(kind) ?? 0) + ms);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** One turn taken apart: events by type, workflow tasks, activities and the provider's request bodies. */
export async function anatomy(
  side: Side,
  handle: WorkflowHandle,
  requests: { body: unknown }[],
): Promise<void> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const types = new Map<string, number>();
  for (const e of events) {
    const t = eventTypeName(e);
    types.set(t, (types.get(t) ?? 0) + 1);
  }
  const bytes = requests.map((r) => JSON.stringify(r.body).length);
  console.log(`${side}: ${events.length} events; request bodies ${bytes.join(', ')} bytes`);
  for (const [t, c] of [...types].sort((a, b) => b[1] - a[1])) console.log(`  ${c} ${t}`);
}
