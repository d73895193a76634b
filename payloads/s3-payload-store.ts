import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import { checkStoreName } from './payload-store.js';
import type { PayloadStore } from './payload-store.js';

/** Where an S3-compatible store is and how to sign requests to it (AWS Signature V4). */
export interface S3StoreOptions {
  bucket: string;
  /** Prepended to every name (`model-retry/` puts objects under that folder). @default '' */
  prefix?: string;
  /**
   * Base URL of an S3-compatible service (MinIO, Ceph, s3rver, ...); requests then use path-style URLs
   * (`ENDPOINT/BUCKET/KEY`). @default AWS S3 in `region`, virtual-hosted URLs
   */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Per request, including retries of 5xx and 429 answers. @default 30000 */
  timeoutMs?: number;
}

/**
 * A store in an S3 bucket, for clusters: every worker, client and codec endpoint that reads or writes payloads
 * points at the same bucket. A small client: `HEAD`, `PUT`, `GET` and `ListObjectsV2` signed with SigV4 by
 * `aws4fetch` over Node's `fetch`.
 */
export class S3PayloadStore implements PayloadStore {
  private readonly aws: AwsClient;
  private readonly base: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: S3StoreOptions) {
    this.aws = new AwsClient({
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
      service: 's3',
      region: options.region,
      retries: 3,
    });
    this.base = options.endpoint
      ? `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(options.bucket)}`
      : `https://${options.bucket}.s3.${options.region}.amazonaws.com`;
    this.prefix = options.prefix ?? '';
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  get description(): string {
    return `s3 ${this.base}/${this.prefix}`;
  }

  private url(name: string): string {
    const key = `${this.prefix}${checkStoreName(name)}`;
    return `${this.base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  private async request(url: string, init: RequestInit, what: string): Promise<Response> {
    try {
      return await this.aws.fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new Error(
        `payload store ${this.description}: ${what} failed: cannot reach the service (${cause})`,
        {
          cause: error,
        },
      );
    }
  }

  async has(name: string): Promise<boolean> {
    const response = await this.request(this.url(name), { method: 'HEAD' }, `HEAD ${name}`);
    if (response.status === 404) return false;
    if (response.ok) return true;
    throw await this.failure(response, `HEAD ${name}`);
  }

  /**
   * The object's `Last-Modified` (whole seconds, as S3 keeps it). S3 has no touch: the claim-check codec writes a
   * referenced object again to refresh it (a copy onto itself would be cheaper on AWS, but not every S3-compatible
   * service moves `Last-Modified` for it), which also restarts a lifecycle rule's count of days.
   */
  async modifiedAt(name: string): Promise<number | undefined> {
    const response = await this.request(this.url(name), { method: 'HEAD' }, `HEAD ${name}`);
    if (response.status === 404) return undefined;
    if (!response.ok) throw await this.failure(response, `HEAD ${name}`);
    const at = Date.parse(response.headers.get('last-modified') ?? '');
    // No date (a service that leaves it out): as old as can be, so the object is written again.
    return Number.isNaN(at) ? 0 : at;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const response = await this.request(
      this.url(name),
      {
        method: 'PUT',
        body: bytes,
        headers: {
          'content-type': 'application/octet-stream',
          'x-amz-content-sha256': createHash('sha256').update(bytes).digest('hex'),
        },
      },
      `PUT ${name}`,
    );
    if (!response.ok) throw await this.failure(response, `PUT ${name}`);
    await response.arrayBuffer();
  }

  async get(name: string): Promise<Uint8Array | undefined> {
    const response = await this.request(this.url(name), { method: 'GET' }, `GET ${name}`);
    if (response.status === 404) {
      await response.arrayBuffer();
      return undefined;
    }
    if (!response.ok) throw await this.failure(response, `GET ${name}`);
    return new Uint8Array(await response.arrayBuffer());
  }

  async list(): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ 'list-type': '2', prefix: this.prefix });
      if (token) query.set('continuation-token', token);
      const response = await this.request(`${this.base}/?${query.toString()}`, { method: 'GET' }, 'LIST');
      if (!response.ok) throw await this.failure(response, 'LIST');
      const xml = await response.text();
      for (const match of xml.matchAll(/<Key>([^<]*)<\/Key>/g))
        names.push(unescapeXml(match[1] ?? '').slice(this.prefix.length));
      token = /<IsTruncated>true<\/IsTruncated>/.test(xml)
        ? unescapeXml(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '')
        : undefined;
    } while (token);
    return names.sort();
  }

  private async failure(response: Response, what: string): Promise<Error> {
    const body = await response.text().catch(() => '');
    const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
    const hint =
      response.status === 403
        ? ' (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket policy; without s3:ListBucket, S3 answers 403 for a missing object)'
        : response.status === 404 && code === 'NoSuchBucket'
          ? ` (create the bucket ${this.options.bucket} first)`
          : '';
    return new Error(
      `payload store ${this.description}: ${what} answered ${response.status}${code ? ` ${code}` : ''}${hint}`,
    );
  }
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
