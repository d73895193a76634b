import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { vi } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import type { AttemptFailureDetails, ModelRequestInput } from '../../../activities/index.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { Env, ProviderRegistry } from '../../../activities/providers/registry.js';
import { toWireMessages } from '../../../common/messages.js';
import type { CallMessage } from '../../../common/messages.js';
import { REQUEST_SPEC } from '../../../common/request.js';
import type { WireRequest } from '../../../common/request.js';
import type { LoopbackProvider } from '../../../loopback/index.js';

/** The key the `local` test provider sends (and what must never show up in a failure). */
export const LOCAL_KEY = 'sk-loopback-test-key-0123456789';

/** A registry with one provider, `local`, pointed at the loopback provider, its key in `LOCAL_KEY`. */
export function loopbackRegistry(lp: LoopbackProvider, baseURL = lp.openaiBaseURL): ProviderRegistry {
  return createProviderRegistry(
    { local: { type: 'openai-compatible', baseURL, apiKeyEnv: 'LOCAL_KEY' } },
    { env: { LOCAL_KEY } },
  );
}

/** The keys the built-in `openai` and `anthropic` providers send in tests. */
export const OPENAI_KEY = 'sk-openai-test-key-0123456789';
export const ANTHROPIC_KEY = 'sk-ant-test-key-0123456789';

/**
 * The worker environment of the built-in providers pointed at the loopback provider (both protocols):
 * `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, then `extra`.
 */
export function builtinEnv(lp: LoopbackProvider, extra: Env = {}): Env {
  return {
    OPENAI_API_KEY: OPENAI_KEY,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    OPENAI_BASE_URL: lp.openaiBaseURL,
    ANTHROPIC_BASE_URL: lp.anthropicBaseURL,
    ...extra,
  };
}

/** A registry with no providers file (the built-ins only), its environment from {@link builtinEnv}. */
export function builtinRegistry(lp: LoopbackProvider, extra: Env = {}): ProviderRegistry {
  return createProviderRegistry({}, { env: builtinEnv(lp, extra) });
}

/**
 * An attempt's input for `model`: one user message, first attempt of call c1, and a 30 s request timeout:
 * generous, so a busy machine slows a test that is not about timeouts but never turns its answer into a
 * `ResponseTimeout`. Tests about the timeout use {@link timedOutAttempt}.
 */
export function input(model: string, extra: Partial<ModelRequestInput> = {}): ModelRequestInput {
  return {
    workflowId: 'wf-test',
    callId: 'c1',
    attempt: 1,
    modelCallId: 'c1.1',
    backend: 0,
    model,
    request: request([{ role: 'user', content: 'hi' }]),
    timeoutMs: 30_000,
    ...extra,
  };
}

/**
 * An attempt's request as the workflow builds it: `messages` (the AI SDK's or the plain shape) converted into
 * wire messages, then `extra` (tools, settings, options) as they are.
 */
export function request(
  messages: readonly CallMessage[],
  extra: Omit<WireRequest, 'spec' | 'prompt'> = {},
): WireRequest {
  return { spec: REQUEST_SPEC, prompt: toWireMessages(messages), ...extra };
}

/** An activity environment whose worker logger keeps quiet about the failures the tests expect. */
export function quietEnvironment(): MockActivityEnvironment {
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

/** Runs `modelRequest` in a real activity context; the environment is returned for cancel and heartbeats. */
export function runAttempt(
  registry: ProviderRegistry,
  attempt: ModelRequestInput,
  env = quietEnvironment(),
): { env: MockActivityEnvironment; done: Promise<unknown> } {
  const { modelRequest } = createActivities({ providers: registry });
  const done = env.run(modelRequest, attempt);
  return { env, done };
}

/** What a promise rejected with (fails the test when it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The attempt's `ApplicationFailure` and its details, checked to be non-retryable with `type` = class. */
export async function attemptFailure(
  promise: Promise<unknown>,
): Promise<{ failure: ApplicationFailure; details: AttemptFailureDetails }> {
  const error = await rejection(promise);
  if (!(error instanceof ApplicationFailure))
    throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  const details = error.details?.[0] as AttemptFailureDetails;
  if (error.nonRetryable !== true) throw new Error('the failure is retryable');
  if (error.type !== details.class) throw new Error(`type ${error.type} but class ${details.class}`);
  if (error.cause !== undefined) throw new Error('the failure carries a cause');
  return { failure: error, details };
}

/**
 * Runs `attempt` and lets its request timeout (`attempt.timeoutMs`) run out only once the loopback provider
 * has received and recorded the request for `model`: `setTimeout` is faked while the request is on its way,
 * then the clock is moved on by the timeout and the real timers are back. So the timeout always aborts a
 * request in flight, however long a busy machine takes to send it (with a real short timer, it could fire
 * before the request arrived: nothing recorded, the scripted step unused). Resolves to the attempt's failure.
 */
export async function timedOutAttempt(
  lp: LoopbackProvider,
  registry: ProviderRegistry,
  attempt: ModelRequestInput,
  model: string,
): Promise<{ failure: ApplicationFailure; details: AttemptFailureDetails }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let failure: ReturnType<typeof attemptFailure>;
  try {
    // Handled at once: an early failure must not be an unhandled rejection while the request is awaited.
    failure = attemptFailure(runAttempt(registry, attempt).done);
    await Promise.race([lp.waitForRequests(1, model), failure]);
    vi.advanceTimersByTime(attempt.timeoutMs);
  } finally {
    vi.useRealTimers();
  }
  return failure;
}
