import { trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';

/** The tracer model-retry's interceptors installed for this run (module state: one per workflow run). */
let installed: Tracer | undefined;

/** Called by model-retry's workflow interceptors (`./interceptors.ts`) when a run starts. */
export function installTracer(tracer: Tracer): void {
  installed = tracer;
}

/**
 * The tracer of model-retry's spans in workflow code: the one model-retry's tracing installed (deterministic ids,
 * see `span-ids.ts`), else the global API's (Temporal's own interceptors', or a non-recording one without any).
 */
export function modelRetryTracer(): Tracer {
  return installed ?? trace.getTracer('model-retry');
}
