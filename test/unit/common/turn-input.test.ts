import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidRetryPlanError, initialState } from '../../../policy/index.js';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import {
  InvalidAgentTurnInputError,
  MAX_TURN_PAYLOAD_BYTES,
  jsonBytes,
  turnMessages,
  turnPlan,
} from '../../../common/turn-input.js';
import { seededState, shareNotBefore, startWithNotBefore } from '../../../policy/shared-not-before.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('an agent turn input is checked before the turn starts', () => {
  it('accepts a turn with tools, a plan and a deadline, and resolves one plan for all its calls', () => {
    const input = {
      model: 'local:m',
      prompt: 'hi',
      tools: ['calculator'],
      retry: { waits: [10] },
      deadlineInMs: 60_000,
      reserveMs: 5000,
    };
    expect(() => checkAgentTurn(input, NOW)).not.toThrow();
    const plan = turnPlan(input, { nowMs: NOW, chainStartMs: NOW });
    expect(plan).toMatchObject({ deadlineMs: NOW + 60_000, reserveMs: 5000, waits: [10] });
  });

  it('makes one attempt per model call without a retry plan, even with a deadline', () => {
    const plan = turnPlan(
      { model: 'local:m', prompt: 'hi', deadlineInMs: 120_000 },
      { nowMs: NOW, chainStartMs: NOW },
    );
    expect(plan.maxAttempts).toBe(1);
    expect(plan.deadlineMs).toBe(NOW + 120_000);
  });

  it.each([
    ['a deadline inside retry', { retry: { deadlineInMs: 1000 } }, 'retry.deadlineInMs'],
    ['a reserve inside retry', { retry: { reserveMs: 1000 } }, 'retry.reserveMs'],
    ['maxSteps 0', { maxSteps: 0 }, 'maxSteps'],
    ['a bad tool name', { tools: ['no spaces'] }, 'tools[0]'],
    ['a tool named twice', { tools: ['a', 'a'] }, 'tools'],
    ['an unknown field', { temperature: 1 }, 'temperature'],
    ['the carried state', { carried: {} }, 'carried'],
  ])('refuses %s, naming the field', (_name, extra, field) => {
    const run = () => checkAgentTurn({ model: 'local:m', prompt: 'hi', ...extra }, NOW);
    expect(run).toThrow(InvalidAgentTurnInputError);
    expect(run).toThrow(`\`${field}\``);
  });

  it('refuses a deadline without room for the reserve, naming reserveMs', () => {
    const run = () =>
      checkAgentTurn({ model: 'local:m', prompt: 'hi', deadlineInMs: 1000, reserveMs: 5000 }, NOW);
    expect(run).toThrow(InvalidRetryPlanError);
    expect(run).toThrow('reserveMs');
  });

  it('refuses a conversation over the payload limit, saying how large it is and what the limit is', () => {
    const big = 'x'.repeat(MAX_TURN_PAYLOAD_BYTES);
    const run = () => checkAgentTurn({ model: 'local:m', prompt: big }, NOW);
    expect(run).toThrow(InvalidAgentTurnInputError);
    expect(run).toThrow(/1\.50 MB of JSON, over the turn limit of 1\.50 MB.*2 MB/);
  });

  it('counts JSON size in UTF-8 bytes', () => {
    expect(jsonBytes('é')).toBe(4);
    expect(jsonBytes('😀')).toBe(6);
    expect(jsonBytes({ a: 1 })).toBe(7);
    expect(jsonBytes('ab\u00e9cd\ud83d\ude00e')).toBe(Buffer.byteLength(JSON.stringify('abécd😀e')));
    // Lone surrogates: JSON.stringify escapes them (six ASCII bytes each).
    for (const lone of ['\ud800a\udc00', 'x\udfff', '\ud83d', 'é\ud800'])
      expect(jsonBytes(lone)).toBe(Buffer.byteLength(JSON.stringify(lone), 'utf8'));
  });

  it('counts any value as Buffer.byteLength counts its JSON (ASCII first, then any mix after)', () => {
    const text = fc.string({ unit: 'binary' });
    // Any UTF-16 code unit, lone surrogates included (the 'binary' unit draws whole code points only).
    const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
    fc.assert(
      fc.property(fc.tuple(fc.string(), text, units, fc.jsonValue()), (value) => {
        expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      }),
      { numRuns: 500 },
    );
  });
});

describe("an agent turn's conversation", () => {
  it("starts from the AI SDK's messages and the plain shape alike, as wire messages", () => {
    expect(
      turnMessages({
        model: 'local:m',
        system: 's',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', image: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }],
          },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 't1', name: 'calculator', args: '{"expression":"1+1"}' }],
          },
          { role: 'tool', toolCallId: 't1', toolName: 'calculator', content: '2' },
        ],
        prompt: 'and now?',
      }),
    ).toEqual([
      { role: 'system', content: 's' },
      {
        role: 'user',
        content: [{ type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 't1', toolName: 'calculator', input: { expression: '1+1' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'calculator',
            output: { type: 'text', value: '2' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
    ]);
  });

  it.each([
    [
      'a file without a media type',
      { messages: [{ role: 'user', content: [{ type: 'file', data: 'AAAA' }] }] },
      'messages[0].content[0].mediaType',
    ],
    [
      'a credential header',
      { prompt: 'hi', headers: { Authorization: 'Bearer x' } },
      'headers.Authorization',
    ],
    [
      'an API key in provider options',
      { prompt: 'hi', providerOptions: { openai: { apiKey: 'k' } } },
      'providerOptions.openai.apiKey',
    ],
    ['a topK that is no whole number', { prompt: 'hi', settings: { topK: 0.5 } }, 'settings.topK'],
  ])("refuses %s as the turn's input error, naming the field", (_name, extra, field) => {
    let error: unknown;
    try {
      checkAgentTurn({ model: 'local:m', ...extra });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidAgentTurnInputError);
    expect((error as Error).message.startsWith(`\`${field}\`: `)).toBe(true);
  });
});

describe('a model call of a turn starts by the retry-after times of the calls before it', () => {
  const plan = turnPlan(
    { model: 'local:m', prompt: 'hi', retry: { waits: [10] }, deadlineInMs: 600_000, reserveMs: 0 },
    { nowMs: NOW, chainStartMs: NOW },
  );
  const backends = ['local:a', 'local:b'];

  it('starts on the first backend that is free at once', () => {
    const decision = startWithNotBefore(plan, seededState(backends, { 'local:a': NOW + 30_000 }), NOW);
    expect(decision).toMatchObject({ kind: 'attempt', backend: 1, waitMs: 0 });
    expect(decision.state.backend).toBe(1);
  });

  it('waits for the earliest backend when every one is inside its retry-after', () => {
    const decision = startWithNotBefore(
      plan,
      seededState(backends, { 'local:a': NOW + 30_000, 'local:b': NOW + 20_000 }),
      NOW,
    );
    expect(decision).toMatchObject({ kind: 'attempt', backend: 1, waitMs: 20_000 });
  });

  it('stops with retry-after-exceeded when that wait is over retryAfter.maxMs', () => {
    const decision = startWithNotBefore(plan, seededState(['local:a'], { 'local:a': NOW + 400_000 }), NOW);
    expect(decision).toMatchObject({ kind: 'stop', reason: 'retry-after-exceeded' });
  });

  it("is the policy's own start when no backend is blocked", () => {
    expect(startWithNotBefore(plan, initialState(2), NOW)).toMatchObject({
      kind: 'attempt',
      backend: 0,
      waitMs: 0,
    });
  });

  it('keeps the later time when a call writes its times back', () => {
    const shared = { 'local:a': NOW + 50_000 };
    const state = seededState(backends, {});
    state.notBefore = [NOW + 10_000, NOW + 5000];
    shareNotBefore(backends, state, shared);
    expect(shared).toEqual({ 'local:a': NOW + 50_000, 'local:b': NOW + 5000 });
  });
});
