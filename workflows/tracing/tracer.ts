import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';

/** The tracer model-retry's interceptors installed for this run (module state: one per workflow run). */
let installed: Tracer | undefined;

/** Called by model-retry's workflow interceptors (`./interceptors.ts`) when a run starts (`undefined`: none). */
export function installTracer(tracer: Tracer | undefined): void {
  installed = tracer;
}

/**
 * The tracer of model-retry's spans in workflow code: the one model-retry's tracing installed (deterministic ids,
 * see `span-ids.ts`), else the global API's (Temporal's own interceptors', or a non-recording one without any).
 */
export function modelRetryTracer(): Tracer {
  return installed ?? trace.getTracer('model-retry');
}

/** What the API's global provider delegates to while nobody registered one: the no-op provider. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether no tracer would record a span or carry its context: model-retry's tracing is not installed and no
 * provider is registered (Temporal's OpenTelemetry interceptors register theirs). Then a call's spans are skipped
 * altogether: they would be non-recording spans in a context nobody reads, and building their attributes costs
 * workflow code time.
 */
export function tracingOff(): boolean {
  if (installed) return false;
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER;
}
