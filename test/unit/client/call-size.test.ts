import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { ExternalStorage, StorageDriverClaim, defaultDataConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMPORAL_PAYLOAD_LIMIT_BYTES, encodedPayloadSize } from '../../../payloads/payload-size.js';
import { ATTEMPT_ROOM_BYTES, checkCallSize } from '../../../client/call-size.js';
import { InvalidModelCallInputError } from '../../../common/call-input/call-input.js';
import { createDataConverter } from '../../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../../payloads/payload-store.js';

/** A client that never connects (the size check asks nothing of the server), with `dataConverter`. */
const clientWith = (dataConverter?: DataConverter) =>
  new Client({
    connection: Connection.lazy({ address: '127.0.0.1:1' }),
    ...(dataConverter ? { dataConverter } : {}),
  });

const MB = 1024 * 1024;
const text = (bytes: number) => 'p'.repeat(bytes);

describe("a call's input is measured as the client stores it, against Temporal's 2 MB payload limit", () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-size-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a 3 MB prompt, naming the field, its size, the limit and the payload store', async () => {
    const check = checkCallSize(clientWith(), { model: 'local:m', prompt: text(3 * MB) });
    await expect(check).rejects.toBeInstanceOf(InvalidModelCallInputError);
    await expect(check).rejects.toThrow(
      /^`prompt`: is 3\.0 MB \(the whole input 3\.0 MB as Temporal stores it\); Temporal's limit on one payload is 2 MB .*shorten it, or enable the payload store .*MODEL_RETRY_PAYLOAD_STORE; see docs\/operations\/security\.md/,
    );
  });

  it('names the message that weighs most', async () => {
    const messages = [
      { role: 'user' as const, content: 'short' },
      { role: 'assistant' as const, content: text(MB) },
      { role: 'user' as const, content: text(1.5 * MB) },
    ];
    await expect(checkCallSize(clientWith(), { model: 'local:m', messages })).rejects.toThrow(
      /^`messages\[2\]`: is 1\.5 MB/,
    );
  });

  it('takes an input that leaves the attempt its room under the limit, and refuses one that does not', async () => {
    const fits = TEMPORAL_PAYLOAD_LIMIT_BYTES - ATTEMPT_ROOM_BYTES - 1000;
    await expect(
      checkCallSize(clientWith(), { model: 'local:m', prompt: text(fits) }),
    ).resolves.toBeUndefined();
    const over = TEMPORAL_PAYLOAD_LIMIT_BYTES - ATTEMPT_ROOM_BYTES + 1000;
    await expect(checkCallSize(clientWith(), { model: 'local:m', prompt: text(over) })).rejects.toThrow(
      /`prompt`/,
    );
  });

  it('lets a 3 MB prompt through when the payload store is on (the history then holds a reference)', async () => {
    const store = new FolderPayloadStore(join(dir, 'store'));
    const client = clientWith(createDataConverter({ payloadStore: store }));
    await expect(checkCallSize(client, { model: 'local:m', prompt: text(3 * MB) })).resolves.toBeUndefined();
  });

  it("counts a payload Temporal's external storage offloads as out of the history", async () => {
    const driver = {
      name: 'test',
      type: 'test.memory',
      store: async (_ctx: unknown, payloads: unknown[]) =>
        payloads.map(() => new StorageDriverClaim({ k: 'v' })),
      retrieve: async () => [],
    };
    const converter = {
      ...defaultDataConverter,
      externalStorage: new ExternalStorage({ drivers: [driver] }),
    };
    expect(await encodedPayloadSize({ prompt: text(3 * MB) }, converter)).toEqual({
      bytes: 0,
      offloaded: true,
    });
    expect(await encodedPayloadSize({ prompt: text(3 * MB) })).toMatchObject({ offloaded: false });
    expect((await encodedPayloadSize({ prompt: 'hi' }, converter)).bytes).toBeGreaterThan(0);
  });
});
