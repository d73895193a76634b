import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3PayloadStore } from '../../../payloads/s3-payload-store.js';
import { payloadStoreFromEnv } from '../../../payloads/store-config.js';
import { startLocalS3 } from '../../harness/s3.js';
import type { LocalS3 } from '../../harness/s3.js';
import { freePort } from '../../../worker/free-port.js';

describe('the S3 payload store, against a local S3-compatible server', () => {
  let s3: LocalS3;
  beforeAll(async () => {
    s3 = await startLocalS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('writes, finds, reads and lists objects under its prefix (configured from the environment)', async () => {
    const store = payloadStoreFromEnv({
      MODEL_RETRY_PAYLOAD_STORE: `s3://${s3.bucket}/team-a/payloads`,
      ...s3.env,
    });
    expect(store?.description).toBe(`s3 ${s3.endpoint}/${s3.bucket}/team-a/payloads/`);
    const other = payloadStoreFromEnv({ MODEL_RETRY_PAYLOAD_STORE: `s3://${s3.bucket}/team-b`, ...s3.env });
    const bytes = new TextEncoder().encode('a long prompt, stored once');
    expect(await store!.has('plain/ab/abcd')).toBe(false);
    expect(await store!.get('plain/ab/abcd')).toBeUndefined();
    await store!.put('plain/ab/abcd', bytes);
    await store!.put('plain/cd/cdef', new Uint8Array([0, 255, 1]));
    await other!.put('plain/ab/abcd', new Uint8Array([9]));
    expect(await store!.has('plain/ab/abcd')).toBe(true);
    expect(await store!.get('plain/ab/abcd')).toEqual(bytes);
    expect(await store!.get('plain/cd/cdef')).toEqual(new Uint8Array([0, 255, 1]));
    expect(await store!.list()).toEqual(['plain/ab/abcd', 'plain/cd/cdef']);
    expect(await other!.list()).toEqual(['plain/ab/abcd']);
  });

  it('says what went wrong: a missing bucket, an unreachable service', async () => {
    const noBucket = new S3PayloadStore({
      bucket: 'no-such-bucket',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    await expect(noBucket.put('plain/ab/abcd', new Uint8Array([1]))).rejects.toThrow(
      /PUT plain\/ab\/abcd answered 404 NoSuchBucket \(create the bucket no-such-bucket first\)/,
    );
    const closed = await freePort();
    const unreachable = new S3PayloadStore({
      bucket: 'b',
      endpoint: `http://127.0.0.1:${closed}`,
      region: 'us-east-1',
      accessKeyId: 'x',
      secretAccessKey: 'y',
    });
    await expect(unreachable.get('plain/ab/abcd')).rejects.toThrow(
      /GET plain\/ab\/abcd failed: cannot reach the service \(ECONNREFUSED\)/,
    );
  });

  it('refuses names that would leave its prefix', async () => {
    const store = new S3PayloadStore({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    await expect(store.get('../escape')).rejects.toThrow(/invalid object name/);
  });
});
