import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptFailureDetails } from '../../../activities/index.js';
import { ok, startLoopbackProvider, streamError } from '../../../loopback/index.js';
import type { LoopbackProvider, Step } from '../../../loopback/index.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { attemptFailure, builtinRegistry, input, loopbackRegistry, runAttempt } from './helpers.js';

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

/** The three provider types, each on its own wire format of the loopback provider. */
const TYPES: readonly (readonly [type: string, model: string, registry: () => ProviderRegistry])[] = [
  ['openai-compatible', 'local:m', () => loopbackRegistry(lp)],
  ['openai', 'openai:m', () => builtinRegistry(lp)],
  ['anthropic', 'anthropic:m', () => builtinRegistry(lp)],
];

/** A streamed attempt whose deltas would go out only after a minute: the attempt ends long before. */
async function streamedFailure(model: string, registry: ProviderRegistry, step: Step) {
  lp.script('m', [step]);
  const attempt = input(model, { stream: { batchMs: 60_000 } });
  return attemptFailure(runAttempt(registry, attempt).done);
}

describe('a stream that ends cleanly without its finish event (a proxy closed it)', () => {
  const cases = TYPES.flatMap(([type, model, registry]) => [
    [`${type}: after two deltas`, model, registry, 2] as const,
    [`${type}: before any delta`, model, registry, 0] as const,
  ]);

  it.each(cases)(
    '%s -> ConnectionLost, not a success with partial text',
    async (_name, model, registry, n) => {
      const { details } = await streamedFailure(
        model,
        registry(),
        ok('a partial answer that a proxy ends', { endAfterChunks: n }),
      );
      expect(details).toMatchObject({ class: 'ConnectionLost' } satisfies Partial<AttemptFailureDetails>);
      expect(details.message).toContain('finish event');
      expect(lp.requests('m')[0]?.outcome).toBe('completed');
    },
  );
});

describe("a provider's error inside a stream is classified by its own status and type", () => {
  type Row = readonly [
    name: string,
    model: string,
    registry: () => ProviderRegistry,
    Step,
    Partial<AttemptFailureDetails>,
  ];
  const rows: readonly Row[] = [
    [
      'anthropic overloaded_error -> ServerError 529',
      'anthropic:m',
      () => builtinRegistry(lp),
      streamError('overloaded_error'),
      { class: 'ServerError', status: 529, code: 'overloaded_error' },
    ],
    [
      'anthropic overloaded_error after two deltas -> ServerError 529',
      'anthropic:m',
      () => builtinRegistry(lp),
      streamError('overloaded_error', { afterChunks: 2 }),
      { class: 'ServerError', status: 529, code: 'overloaded_error' },
    ],
    [
      'anthropic rate_limit_error -> RateLimited 429',
      'anthropic:m',
      () => builtinRegistry(lp),
      streamError('rate_limit_error', { afterChunks: 1 }),
      { class: 'RateLimited', status: 429, code: 'rate_limit_error' },
    ],
    [
      'anthropic api_error -> ServerError 500',
      'anthropic:m',
      () => builtinRegistry(lp),
      streamError('api_error', { afterChunks: 1 }),
      { class: 'ServerError', status: 500 },
    ],
    [
      'openai server_error chunk -> ServerError 500',
      'openai:m',
      () => builtinRegistry(lp),
      streamError('server_error', { afterChunks: 1 }),
      { class: 'ServerError', status: 500, code: 'server_error' },
    ],
    [
      'openai rate_limit_exceeded chunk -> RateLimited 429',
      'openai:m',
      () => builtinRegistry(lp),
      streamError('requests', { code: 'rate_limit_exceeded', afterChunks: 1 }),
      { class: 'RateLimited', status: 429, code: 'rate_limit_exceeded' },
    ],
    [
      'openai-compatible server_error chunk -> ServerError 500',
      'local:m',
      () => loopbackRegistry(lp),
      streamError('server_error', { afterChunks: 1 }),
      { class: 'ServerError', status: 500, code: 'server_error' },
    ],
    [
      'openai-compatible rate_limit_exceeded chunk -> RateLimited 429',
      'local:m',
      () => loopbackRegistry(lp),
      streamError('requests', { code: 'rate_limit_exceeded' }),
      { class: 'RateLimited', status: 429, code: 'rate_limit_exceeded' },
    ],
    [
      'openai-compatible overloaded_error chunk -> ServerError 529',
      'local:m',
      () => loopbackRegistry(lp),
      streamError('overloaded_error', { afterChunks: 2 }),
      { class: 'ServerError', status: 529 },
    ],
    [
      'openai-compatible insufficient_quota chunk -> QuotaExhausted',
      'local:m',
      () => loopbackRegistry(lp),
      streamError('insufficient_quota', { code: 'insufficient_quota' }),
      { class: 'QuotaExhausted', code: 'insufficient_quota' },
    ],
    [
      'openai-compatible error chunk of an unknown type -> ConnectionLost (no status known)',
      'local:m',
      () => loopbackRegistry(lp),
      streamError('something_new', { afterChunks: 1 }),
      { class: 'ConnectionLost', code: 'something_new' },
    ],
  ];

  it.each(rows)('%s', async (_name, model, registry, step, expected) => {
    const { details } = await streamedFailure(model, registry(), step);
    expect(details).toMatchObject(expected);
  });
});
