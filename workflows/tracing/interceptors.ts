/**
 * model-retry's workflow interceptors for tracing (not a workflow): Temporal's OpenTelemetry interceptors, with
 * a tracer whose span and trace ids come from the run's own sequence (`RunIdGenerator`) instead of the workflow's
 * random. The tracer Temporal's module makes draws its ids from `Math.random`, i.e. the workflow's random, which
 * the backoff jitter draws from too: with it, a call's waits would differ with tracing on and off. Spans still
 * leave the sandbox through that package's `exporter` sink. Installed by `startTracing` (worker/tracing.ts).
 */
// First: Temporal's module sets the globals OpenTelemetry's browser build reads (`performance`) in the sandbox.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracer } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import type {
  QueryInput,
  UpdateInput,
  WorkflowInterceptors,
  Next,
  WorkflowInboundCallsInterceptor,
} from '@temporalio/workflow';
import { outsideHistory, RunIdGenerator } from './span-ids.js';
import { installTracer } from './tracer.js';

/** This run's provider (module state: one per workflow run), made on first use inside the workflow. */
let provider: BasicTracerProvider | undefined;

function runTracer(name: string): Tracer {
  if (!provider) {
    provider = new BasicTracerProvider({ idGenerator: new RunIdGenerator() });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
  }
  return provider.getTracer(name);
}

class Inbound extends OpenTelemetryInboundInterceptor {
  protected override readonly tracer = runTracer('@temporalio/interceptor-workflow');

  // A query or an update's validator is not replayed: its span takes its ids aside.
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>) {
    return outsideHistory(() => super.handleQuery(input, next));
  }

  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>) {
    outsideHistory(() => super.validateUpdate(input, next));
  }
}

class Outbound extends OpenTelemetryOutboundInterceptor {
  protected override readonly tracer = runTracer('@temporalio/interceptor-workflow');
}

/** The workflow interceptors factory Temporal's bundler looks for. */
export const interceptors = (): WorkflowInterceptors => {
  installTracer(runTracer('model-retry'));
  return {
    inbound: [new Inbound()],
    outbound: [new Outbound()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
