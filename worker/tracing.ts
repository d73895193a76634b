import { context, propagation } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { ConfigError } from './config.js';
import { workflowsModulePath } from '../plugin/own-files.js';

/** The OTLP encodings over HTTP that model-retry exports with (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Where and how spans go: read from the standard `OTEL_*` variables by `tracingSettingsFromEnv`. */
export interface TracingSettings {
  /** The full traces URL, e.g. `http://127.0.0.1:4318/v1/traces`. */
  url: string;
  /** @default 'http/protobuf' (the OTLP default) */
  protocol?: OtlpProtocol;
}

/** A process's tracing: give `plugin` to its Worker and Client; `shutdown` flushes what is left. */
export interface Tracing {
  /** Temporal's `OpenTelemetryPlugin`: client, workflow and activity interceptors, and the workflow span sink. */
  plugin: OpenTelemetryPlugin;
  tracer: Tracer;
  resource: Resource;
  settings: Required<TracingSettings>;
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The default `service.name` (`OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` override it). */
export const DEFAULT_SERVICE_NAME = 'model-retry';

/**
 * Reads the standard OpenTelemetry variables: tracing is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as
 * is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended) is set, and off (undefined) otherwise, or with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Refuses what it cannot honour, naming the variable.
 */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return undefined;
  if (exporter && exporter !== 'otlp') {
    throw new ConfigError(
      `OTEL_TRACES_EXPORTER="${env.OTEL_TRACES_EXPORTER}" is not supported: model-retry exports OTLP; set it to ` +
        '`otlp` (or `none` to turn tracing off)',
    );
  }
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const name = own ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = own || base;
  if (!endpoint) return undefined;
  if (!/^https?:\/\/[^/]/.test(endpoint) || !URL.canParse(endpoint)) {
    throw new ConfigError(`${name} must be an http(s) URL, e.g. http://127.0.0.1:4318 (got "${endpoint}")`);
  }
  const url = own ? endpoint : `${endpoint.replace(/\/+$/, '')}/v1/traces`;
  return { url, protocol: protocolFromEnv(env) };
}

function protocolFromEnv(env: NodeJS.ProcessEnv): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = env[name]?.trim() || 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(raw)) return raw as OtlpProtocol;
  throw new ConfigError(
    `${name}="${raw}" is not supported: model-retry exports OTLP over HTTP; set it to http/protobuf or ` +
      'http/json (the collector port is usually 4318)',
  );
}

/**
 * The resource of every span and of the worker's metrics: `service.name` (default `model-retry`) and whatever
 * `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say, on top of the SDK's own (`telemetry.sdk.*`).
 */
export function tracingResource(): Resource {
  return Resource.default()
    .merge(new Resource({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(envDetectorSync.detect());
}

/** The tracing of the environment, or undefined when no OTLP endpoint is configured. */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const settings = tracingSettingsFromEnv(env);
  return settings ? startTracing(settings) : undefined;
}

/**
 * Sets up export to `settings.url` and returns Temporal's plugin around it. Context propagation (W3C trace
 * context and baggage, an AsyncLocalStorage context manager) is installed process-wide once, as the
 * interceptors read it from the global API; the tracer provider is not made global, so that a host with its own
 * OpenTelemetry SDK keeps it.
 */
export function startTracing(settings: TracingSettings): Tracing {
  installPropagation();
  const resolved = { url: settings.url, protocol: settings.protocol ?? 'http/protobuf' };
  const resource = tracingResource();
  const exporter: SpanExporter =
    resolved.protocol === 'http/json'
      ? new OtlpJsonExporter({ url: resolved.url })
      : new OtlpProtobufExporter({ url: resolved.url });
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(processor);
  const tracer = provider.getTracer('model-retry');
  return {
    plugin: new RunIdOpenTelemetryPlugin({ resource, spanProcessor: processor, tracer }),
    tracer,
    resource,
    settings: resolved,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * model-retry's workflow interceptors module (`workflows/tracing/interceptors.ts`): Temporal's interceptors with
 * span ids that draw nothing from the workflow's random, so a call's backoff jitter is the same with tracing on
 * or off.
 */
export function tracingInterceptorsPath(): string {
  return workflowsModulePath('tracing/interceptors');
}

/**
 * Temporal's `OpenTelemetryPlugin` with model-retry's workflow interceptors module in place of Temporal's (whose
 * tracer draws span ids from the workflow's random); the client, activity and sink parts stay Temporal's.
 */
class RunIdOpenTelemetryPlugin extends OpenTelemetryPlugin {
  constructor(options: ConstructorParameters<typeof OpenTelemetryPlugin>[0]) {
    super(options);
    const interceptors = this.options.workerInterceptors;
    if (interceptors && typeof interceptors !== 'function')
      interceptors.workflowModules = [tracingInterceptorsPath()];
  }
}

let propagationInstalled = false;

function installPropagation(): void {
  if (propagationInstalled) return;
  propagationInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
}

/**
 * The resource's attributes as Prometheus labels (dots become underscores: `service_name`), so that the
 * worker's metrics and its spans name the same service.
 */
export function resourceLabels(resource: Resource = tracingResource()): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(resource.attributes)) {
    if (key.startsWith('telemetry.sdk.') || value === undefined) continue;
    labels[key.replace(/[^A-Za-z0-9_]/g, '_')] = String(value);
  }
  return labels;
}
