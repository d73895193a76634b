import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-error.js';
import {
  createDataConverter,
  describePayloadSettings,
  encodingFailureConverterPath,
  payloadSettingsFromEnv,
} from '../../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../../payloads/payload-store.js';
import { S3PayloadStore } from '../../../payloads/s3-payload-store.js';
import { key, keyEntry } from './helpers.js';

const AWS = { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' };

describe('payload settings from the environment', () => {
  it('are empty without variables: Temporal default converter plus the guard, no encoded failures', () => {
    expect(payloadSettingsFromEnv({})).toEqual({});
    const converter = createDataConverter({});
    expect(converter.payloadCodecs).toHaveLength(1);
    expect(converter.failureConverterPath).toBeUndefined();
    expect(describePayloadSettings({})).toBeUndefined();
  });

  it('read a folder store (path or file URL), an S3 store, and the threshold', () => {
    const folder = payloadSettingsFromEnv({
      MODEL_RETRY_PAYLOAD_STORE: '/var/lib/mr',
      MODEL_RETRY_PAYLOAD_STORE_THRESHOLD: '4096',
    });
    expect(folder.payloadStore).toBeInstanceOf(FolderPayloadStore);
    expect(folder.payloadStore?.description).toBe('folder /var/lib/mr');
    expect(folder.claimThresholdBytes).toBe(4096);
    expect(
      payloadSettingsFromEnv({ MODEL_RETRY_PAYLOAD_STORE: 'file:///srv/a%20b' }).payloadStore?.description,
    ).toBe('folder /srv/a b');
    const s3 = payloadSettingsFromEnv({
      MODEL_RETRY_PAYLOAD_STORE: 's3://my-bucket/x/',
      AWS_REGION: 'eu-west-1',
      ...AWS,
    });
    expect(s3.payloadStore).toBeInstanceOf(S3PayloadStore);
    expect(s3.payloadStore?.description).toBe('s3 https://my-bucket.s3.eu-west-1.amazonaws.com/x/');
    expect(s3.claimThresholdBytes).toBe(2048);
  });

  it.each([
    [
      'an unknown kind of store',
      { MODEL_RETRY_PAYLOAD_STORE: 'gs://bucket' },
      /MODEL_RETRY_PAYLOAD_STORE=gs:\/\/bucket: unknown kind of store/,
    ],
    [
      'an S3 store without credentials',
      { MODEL_RETRY_PAYLOAD_STORE: 's3://bucket' },
      /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set/,
    ],
    [
      'a bad bucket name',
      { MODEL_RETRY_PAYLOAD_STORE: 's3://B_/p', ...AWS },
      /"B_" is not an S3 bucket name/,
    ],
    [
      'an endpoint that is not a URL',
      { MODEL_RETRY_PAYLOAD_STORE: 's3://bucket', AWS_ENDPOINT_URL_S3: 'localhost:9000', ...AWS },
      /must be an http\(s\) URL/,
    ],
    [
      'a threshold below 256 bytes',
      { MODEL_RETRY_PAYLOAD_STORE: '/x', MODEL_RETRY_PAYLOAD_STORE_THRESHOLD: '100' },
      /MODEL_RETRY_PAYLOAD_STORE_THRESHOLD must be a whole number of bytes >= 256 \(got "100"\)/,
    ],
    ['a bad key', { MODEL_RETRY_CODEC_KEYS: 'k1:abc' }, /MODEL_RETRY_CODEC_KEYS: the key "k1" is 2 bytes/],
  ])('refuse %s before anything starts, naming the variable', (_what, env, message) => {
    expect(() => payloadSettingsFromEnv(env)).toThrow(ConfigError);
    expect(() => payloadSettingsFromEnv(env)).toThrow(message);
  });

  it('with keys: the store seals texts, failures are encoded, and the log line names key ids only', () => {
    const k2 = key('k2');
    const settings = payloadSettingsFromEnv({
      MODEL_RETRY_CODEC_KEYS: `${keyEntry(k2)},${keyEntry(key('k1'))}`,
      MODEL_RETRY_PAYLOAD_STORE: '/tmp/mr-payloads',
    });
    const converter = createDataConverter(settings);
    expect(converter.payloadCodecs?.map((c) => c.constructor.name)).toEqual([
      'MissingCodecGuard',
      'ClaimCheckCodec',
      'AesGcmCodec',
    ]);
    expect(converter.failureConverterPath).toBe(encodingFailureConverterPath());
    const line = describePayloadSettings(settings) ?? '';
    expect(line).toBe(
      'payloads encrypted (AES-256-GCM) with key id "k2"; 1 older key(s) decrypt: "k1"; strings over 2048 bytes stored once in folder /tmp/mr-payloads',
    );
    expect(line).not.toContain(Buffer.from(k2.key).toString('base64'));
  });
});
