import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-error.js';
import { resourceLabels, tracingSettingsFromEnv } from '../../../worker/tracing.js';
import { Resource } from '@opentelemetry/resources';

describe('tracing settings from the standard OTEL_* variables', () => {
  it('are off without an endpoint, or when the SDK or the traces exporter is turned off', () => {
    expect(tracingSettingsFromEnv({})).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingSettingsFromEnv({ ...on, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettingsFromEnv({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('post to <endpoint>/v1/traces, or to the traces endpoint as given, in http/protobuf unless told', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(
      tracingSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ url: 'https://traces.example/otlp', protocol: 'http/json' });
    expect(
      tracingSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      })?.protocol,
    ).toBe('http/json');
  });

  it('refuse what cannot be honoured, naming the variable and the fix', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => tracingSettingsFromEnv({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(() => tracingSettingsFromEnv({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported.*http\/protobuf or http\/json/,
    );
    expect(() => tracingSettingsFromEnv({ ...on, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      /OTEL_TRACES_EXPORTER="zipkin".*`otlp`/,
    );
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be/,
    );
  });
});

describe('the resource as Prometheus labels', () => {
  it('keeps service and deployment attributes, with underscores, and leaves out the SDK’s own', () => {
    const resource = new Resource({
      'service.name': 'svc',
      'deployment.environment': 'prod',
      'telemetry.sdk.language': 'nodejs',
    });
    expect(resourceLabels(resource)).toEqual({ service_name: 'svc', deployment_environment: 'prod' });
  });
});
