import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ok } from '../../loopback/index.js';
import { ClaimCheckCodec } from '../../payloads/claim-check-codec.js';
import { payloadSettingsFromEnv } from '../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../payloads/payload-store.js';
import type { PayloadStore } from '../../payloads/payload-store.js';
import { runCli } from '../harness/cli.js';
import { useTempDir } from '../harness/fixture.js';
import { modelCallFixture, runCall } from '../harness/model-call.js';
import { startLocalS3 } from '../harness/s3.js';
import type { LocalS3 } from '../harness/s3.js';

const DAY = 24 * 60 * 60 * 1000;
/** The namespace's retention the sweep is run for, in days. */
const RETENTION_DAYS = 30;
/** A system prompt every call shares, long enough for the store (over 2 KB). */
const SHARED = `You are the support desk of a parcel service. ${'Answer politely and name the parcel number. '.repeat(80)}`;

/**
 * A worker and a client in one process whose codecs read `clock` (days pass without waiting), both on `store`:
 * a call with the shared system prompt, then, 40 days later by the clock and by the object's own time, another.
 * Returns the second call's workflow id and the store's one object.
 */
async function twoCallsFortyDaysApart(
  store: PayloadStore,
  objectFile: (name: string) => string,
): Promise<{ workflowId: string; name: string; before: number }> {
  let now = Date.now();
  const converter = (): DataConverter => ({
    payloadCodecs: [new ClaimCheckCodec({ store, clock: () => now })],
  });
  const fx = await modelCallFixture({ dataConverter: converter() });
  try {
    const worker = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      dataConverter: converter(),
    });
    const [m1, m2] = [fx.model(), fx.model()];
    fx.lp.script(m1.id, [ok('Parcel 1 is on its way.')]);
    fx.lp.script(m2.id, [ok('Parcel 2 is on its way.')]);
    const first = await runCall(fx, worker, { model: m1.name, system: SHARED, prompt: 'Where is parcel 1?' });
    expect(first.result?.output.text).toBe('Parcel 1 is on its way.');
    const names = await store.list();
    expect(names).toHaveLength(1);
    const name = names[0] as string;
    // Forty days pass: the object was written forty days ago, and the same worker and client are still running.
    const old = new Date(Date.now() - 40 * DAY);
    utimesSync(objectFile(name), old, old);
    now += 40 * DAY;
    const before = Date.now();
    const second = await runCall(fx, worker, {
      model: m2.name,
      system: SHARED,
      prompt: 'Where is parcel 2?',
    });
    expect(second.result?.output.text).toBe('Parcel 2 is on its way.');
    await worker.stop();
    return { workflowId: second.workflowId, name, before };
  } finally {
    await fx.close();
  }
}

/** `model-retry history` reads the call back through the store (exit 0), or says what is missing. */
async function historyReads(workflowId: string, env: Record<string, string>) {
  const cli = await runCli(['history', workflowId, '--json'], {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    ...env,
  });
  expect(cli.stderr).not.toMatch(/not in the payload store/);
  expect(cli.code, cli.stderr).toBe(0);
}

describe('the payload store keeps what is referenced: an object in use is touched, so the retention sweep keeps it', () => {
  const dir = useTempDir('model-retry-retention-');
  let s3: LocalS3;
  beforeAll(async () => {
    s3 = await startLocalS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('folder store: the sweep of docs/operations/security.md (find -mtime) after a new call that shares an old prompt keeps it', async () => {
    const folder = join(dir, 'payloads');
    const store = new FolderPayloadStore(folder);
    const { workflowId, name, before } = await twoCallsFortyDaysApart(store, (n) =>
      join(folder, ...n.split('/')),
    );
    expect(statSync(join(folder, ...name.split('/'))).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    // The sweep docs/operations/security.md gives: objects untouched for longer than the retention plus the touch interval go.
    execFileSync('find', [folder, '-type', 'f', '-mtime', `+${RETENTION_DAYS + 1}`, '-delete']);
    expect(await store.list()).toEqual([name]);
    await historyReads(workflowId, { MODEL_RETRY_PAYLOAD_STORE: folder });
  });

  it("S3 store: the object's Last-Modified is refreshed, so a lifecycle rule on it keeps it", async () => {
    const env = { MODEL_RETRY_PAYLOAD_STORE: `s3://${s3.bucket}/retention`, ...s3.env };
    const store = payloadSettingsFromEnv(env).payloadStore as PayloadStore;
    // s3rver keeps each object in a file and answers its mtime as Last-Modified.
    const objectFile = (name: string) => {
      const hex = name.slice(name.lastIndexOf('/') + 1);
      const found = (readdirSync(s3.directory, { recursive: true }) as string[]).filter(
        (f) => f.includes(hex) && f.endsWith('._S3rver_object'),
      );
      expect(found).toHaveLength(1);
      return join(s3.directory, found[0] as string);
    };
    const { workflowId, name, before } = await twoCallsFortyDaysApart(store, objectFile);
    expect(statSync(objectFile(name)).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    const head = await fetchLastModified(store, name);
    expect(head).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    // A lifecycle rule expiring objects after the retention plus a day would not take it.
    expect(Date.now() - head).toBeLessThan((RETENTION_DAYS + 1) * DAY);
    await historyReads(workflowId, env);
  });
});

/** The object's Last-Modified as the S3 service answers it to a HEAD. */
async function fetchLastModified(store: PayloadStore, name: string): Promise<number> {
  const at = await (store as { modifiedAt?: (n: string) => Promise<number | undefined> }).modifiedAt?.(name);
  expect(at).toBeTypeOf('number');
  return at as number;
}
