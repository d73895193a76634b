import { ConfigError } from '../common/config-error.js';
import { DEFAULT_CLAIM_THRESHOLD_BYTES, PAYLOAD_STORE_ENV } from './claim-check-codec.js';
import { FolderPayloadStore } from './payload-store.js';
import type { PayloadStore } from './payload-store.js';
import { S3PayloadStore } from './s3-payload-store.js';

/** The variable for the size above which a string goes to the store (UTF-8 bytes). */
export const PAYLOAD_STORE_THRESHOLD_ENV = 'MODEL_RETRY_PAYLOAD_STORE_THRESHOLD';
/** The smallest threshold accepted: below it a reference would not be much smaller than what it replaces. */
export const MIN_CLAIM_THRESHOLD_BYTES = 256;

/**
 * The payload store named by `MODEL_RETRY_PAYLOAD_STORE`, or `undefined` when it is not set:
 * - a folder: `/var/lib/model-retry/payloads`, `./payloads` or `file:///var/lib/model-retry/payloads`;
 * - an S3 bucket: `s3://BUCKET[/PREFIX]`, with the AWS SDKs' variables: `AWS_ACCESS_KEY_ID`,
 *   `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` (optional), `AWS_REGION` or `AWS_DEFAULT_REGION` (default
 *   `us-east-1`), and `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` for an S3-compatible service (path-style URLs).
 * @throws ConfigError naming the variable and the fix.
 */
export function payloadStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadStore | undefined {
  const raw = env[PAYLOAD_STORE_ENV]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (raw.startsWith('s3://')) return s3Store(raw, env);
  if (raw.startsWith('file://')) {
    let path: string;
    try {
      path = decodeURIComponent(new URL(raw).pathname);
    } catch {
      throw new ConfigError(
        `${PAYLOAD_STORE_ENV}=${raw} is not a file URL; use file:///ABSOLUTE/PATH or a plain path.`,
      );
    }
    return new FolderPayloadStore(path);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw))
    throw new ConfigError(
      `${PAYLOAD_STORE_ENV}=${raw}: unknown kind of store; use a folder path, file:///PATH or s3://BUCKET/PREFIX.`,
    );
  return new FolderPayloadStore(raw);
}

function s3Store(raw: string, env: NodeJS.ProcessEnv): PayloadStore {
  const rest = raw.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = (slash < 0 ? '' : rest.slice(slash + 1)).replace(/^\/+|\/+$/g, '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(
      `${PAYLOAD_STORE_ENV}=${raw}: "${bucket}" is not an S3 bucket name; use s3://BUCKET/PREFIX.`,
    );
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new ConfigError(
      `${PAYLOAD_STORE_ENV} names an S3 bucket, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set: ` +
        'set them to credentials that may read and write the bucket.',
    );
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new ConfigError(
      `AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL must be an http(s) URL (got "${endpoint}").`,
    );
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return new S3PayloadStore({
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(endpoint ? { endpoint } : {}),
  });
}

/** `MODEL_RETRY_PAYLOAD_STORE_THRESHOLD`, or the default (2048 bytes). */
export function claimThresholdFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[PAYLOAD_STORE_THRESHOLD_ENV]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_CLAIM_THRESHOLD_BYTES;
  const bytes = Number(raw);
  if (!Number.isInteger(bytes) || bytes < MIN_CLAIM_THRESHOLD_BYTES)
    throw new ConfigError(
      `${PAYLOAD_STORE_THRESHOLD_ENV} must be a whole number of bytes >= ${MIN_CLAIM_THRESHOLD_BYTES} (got "${raw}").`,
    );
  return bytes;
}
