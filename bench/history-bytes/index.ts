import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createDataConverter, FolderPayloadStore } from '../../payloads/index.js';
import { fail, ok } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { runCall } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { anatomy } from '../lib/history.js';
import type { CallAnatomy } from '../lib/history.js';
import { fmtBytes, fmtRatio, median, ratio } from '../lib/stats.js';

const KB = 1024;
const SIZES = { quick: [1 * KB, 100 * KB], full: [1 * KB, 100 * KB, 1024 * KB] };

/** What one prompt size cost in history bytes, in one setting. */
interface Sized {
  promptBytes: number;
  totalBytes: number;
  startBytes: number;
  perAttemptBytes: number;
}

interface Variant {
  name: 'plain' | 'payload store';
  client: Client;
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * Item 5: history bytes per attempt as the prompt grows. A call whose first attempt fails (a 502, then a wait)
 * and whose second answers, with a prompt of each size; bytes are the protobuf size of the events (payloads
 * included): the run's start (which carries the input once), and each attempt's events from its
 * `ActivityTaskScheduled` (which carries the whole prompt) to the next. The same again with the claim-check
 * payload store (`createDataConverter({ payloadStore })`, a folder), which keeps each large string once outside
 * the history.
 */
export const historyBytes: Benchmark = {
  name: 'history-bytes',
  title: '5. History bytes per attempt as the prompt grows',
  async run(ctx) {
    const sizes = SIZES[ctx.size];
    const reps = ctx.size === 'quick' ? 1 : 2;
    const storeDir = mkdtempSync(join(tmpdir(), 'model-retry-bench-store-'));
    const variants = await openVariants(
      ctx,
      createDataConverter({ payloadStore: new FolderPayloadStore(storeDir) }),
    );
    const results: Record<string, Sized[]> = {};
    try {
      for (const v of variants) {
        results[v.name] = [];
        for (const size of sizes) {
          const runs: CallAnatomy[] = [];
          for (let rep = 0; rep < reps; rep += 1) runs.push(await measure(ctx, v, size));
          results[v.name]?.push({
            promptBytes: size,
            totalBytes: median(runs.map((r) => r.totalBytes)),
            startBytes: median(runs.map((r) => r.startBytes)),
            perAttemptBytes: median(runs.flatMap((r) => r.attempts.map((a) => a.bytes))),
          });
          ctx.lp.reset();
        }
      }
    } finally {
      for (const v of variants) await v.stop();
      rmSync(storeDir, { recursive: true, force: true });
    }
    const plain = results.plain ?? [];
    const stored = results['payload store'] ?? [];
    return {
      name: 'history-bytes',
      title: this.title,
      params: { promptBytes: sizes, repetitions: reps, attemptsPerCall: 2, claimThresholdBytes: 2048 },
      figures: results,
      tables: [
        {
          title: 'History bytes of a call with 2 attempts (a 502, a wait, the answer)',
          columns: [
            'prompt',
            'history',
            'run start',
            'per attempt',
            'per attempt / prompt',
            'per attempt, payload store',
            'history, payload store',
            'history: store vs plain',
          ],
          rows: plain.map((p, i) => {
            const s = stored[i];
            return [
              fmtBytes(p.promptBytes),
              fmtBytes(p.totalBytes),
              fmtBytes(p.startBytes),
              fmtBytes(p.perAttemptBytes),
              fmtRatio(ratio(p.perAttemptBytes, p.promptBytes)),
              s ? fmtBytes(s.perAttemptBytes) : 'n/a',
              s ? fmtBytes(s.totalBytes) : 'n/a',
              s ? fmtRatio(ratio(s.totalBytes, p.totalBytes)) : 'n/a',
            ];
          }),
          notes: [
            'Payload store: strings over 2 KB (the default threshold) go to a folder store, named by their SHA-256, ' +
              'and the history keeps a reference; a prompt under the threshold stays inline.',
          ],
        },
      ],
      notes: [
        `Without a store every attempt repeats the whole prompt: at ${fmtBytes(plain.at(-1)?.promptBytes ?? NaN)} an ` +
          `attempt adds ${fmtBytes(plain.at(-1)?.perAttemptBytes ?? NaN)} to the history, so a call of n attempts ` +
          'carries the prompt n + 1 times (once in its input).',
        `Beside its prompt, an attempt costs about ${fmtBytes((plain[0]?.perAttemptBytes ?? NaN) - (plain[0]?.promptBytes ?? NaN))} ` +
          `of events (${fmtBytes(plain[0]?.promptBytes ?? NaN)} prompt).`,
      ],
    };
  },
};

async function openVariants(ctx: BenchContext, dataConverter: DataConverter): Promise<Variant[]> {
  const plain = await ctx.startWorker();
  const stored = await ctx.startWorker({ dataConverter });
  return [
    { name: 'plain', client: ctx.client, taskQueue: plain.taskQueue, stop: () => plain.stop() },
    {
      name: 'payload store',
      client: new Client({ connection: ctx.client.connection, namespace: ctx.namespace, dataConverter }),
      taskQueue: stored.taskQueue,
      stop: () => stored.stop(),
    },
  ];
}

async function measure(ctx: BenchContext, v: Variant, size: number): Promise<CallAnatomy> {
  const model = ctx.model(`bytes-${size}`);
  ctx.lp.script(model.id, [fail(502), ok()]);
  const run = await runCall(
    ctx,
    v.taskQueue,
    { model: model.name, prompt: prompt(size), retry: { waits: [10] } },
    v.client,
  );
  if (!run.ok) throw new Error(`history-bytes: ${run.workflowId} (${v.name}, ${size} B) did not succeed`);
  return anatomy(run.history);
}

/** `bytes` of ASCII text (so bytes = characters), varied so nothing could shorten it. */
function prompt(bytes: number): string {
  const words = ['durable', 'model', 'call', 'attempt', 'history', 'retry', 'timer', 'payload'];
  let out = '';
  for (let i = 0; out.length < bytes; i += 1) out += `${words[i % words.length]}${i} `;
  return out.slice(0, bytes);
}
