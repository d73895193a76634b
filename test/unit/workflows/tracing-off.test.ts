import { afterEach, describe, expect, it, vi } from 'vitest';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { CallTrace } from '../../../workflows/call/call-trace.js';
import { installTracer, tracingOff } from '../../../workflows/tracing/tracer.js';

describe('a call makes no spans while no tracer would record them', () => {
  afterEach(() => {
    trace.disable();
  });

  it('is off with no provider registered and model-retry tracing not installed', () => {
    expect(tracingOff()).toBe(true);
    const getTracer = vi.spyOn(trace, 'getTracer');
    const spans = new CallTrace('c1', ['local:m']);
    const value = Promise.resolve('answer');
    // The attempt runs as given: its own promise, with nothing around it, and no tracer is asked for a span.
    const attempt = spans.attempt({} as never, () => value);
    expect(attempt.value).toBe(value);
    attempt.done(undefined);
    spans.stopped({ kind: 'stop', reason: 'succeeded' } as never, []);
    expect(getTracer).not.toHaveBeenCalled();
    getTracer.mockRestore();
  });

  it("is on once a provider is registered globally (Temporal's OpenTelemetry interceptors register theirs)", () => {
    const provider = new BasicTracerProvider();
    provider.register();
    expect(tracingOff()).toBe(false);
  });

  it('is on once model-retry tracing installed its tracer', () => {
    installTracer(new BasicTracerProvider().getTracer('t'));
    try {
      expect(tracingOff()).toBe(false);
    } finally {
      installTracer(undefined);
    }
  });
});
