import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** A local S3-compatible server (`s3rver`) on loopback with one empty bucket, and the variables to reach it. */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Where the server keeps its objects on disk (an object's file carries its Last-Modified time). */
  directory: string;
  /** `AWS_*` variables for `MODEL_RETRY_PAYLOAD_STORE=s3://...` (s3rver's fixed test credentials). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'model-retry-payloads'): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'model-retry-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: endpoint,
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
