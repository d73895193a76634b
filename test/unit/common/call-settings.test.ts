import { describe, expect, it } from 'vitest';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import { checkModelCall } from '../../../client/model-call-client.js';
import {
  InvalidModelCallInputError,
  checkCallInput,
  checkSettings,
  validateCallInput,
} from '../../../common/call-input/call-input.js';
import { InvalidAgentTurnInputError } from '../../../common/turn-input.js';

const call = (settings: unknown) => ({ model: 'local:m', prompt: 'hi', settings });

describe("a call's settings are checked before anything starts", () => {
  it.each([
    [{}],
    [{ maxOutputTokens: 1 }],
    [{ maxOutputTokens: 200_000, temperature: 0, topP: 1, stopSequences: ['END', '\n\n'], seed: -7 }],
    [{ temperature: 2, topP: 0 }],
    [{ stopSequences: [] }],
    [{ topK: 1 }],
    [{ topK: 40 }],
    [{ presencePenalty: -2, frequencyPenalty: 2 }],
    [{ presencePenalty: 0.5, frequencyPenalty: -1.25 }],
    ...['provider-default', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map(
      (reasoning): [object] => [{ reasoning }],
    ),
    [
      {
        maxOutputTokens: 64,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        stopSequences: ['END'],
        seed: 7,
        reasoning: 'high',
      },
    ],
  ] as [object][])('takes %j, and every attempt sends it', (settings) => {
    expect(() => validateCallInput(call(settings))).not.toThrow();
    expect(checkCallInput(call(settings)).request).toMatchObject(settings);
  });

  it.each([
    // a string where a list belongs was once spread into letters by the provider
    [
      'stopSequences: "END"',
      { stopSequences: 'END' },
      /^`settings\.stopSequences`: must be an array of strings: write `stopSequences: \["END"\]`/,
    ],
    [
      'a stop sequence that is no string',
      { stopSequences: ['a', 3] },
      /^`settings\.stopSequences\[1\]`: must be a non-empty string \(got 3\)/,
    ],
    [
      'an empty stop sequence',
      { stopSequences: [''] },
      /^`settings\.stopSequences\[0\]`: must be a non-empty string/,
    ],
    [
      'stop sequences as an object',
      { stopSequences: { a: 1 } },
      /^`settings\.stopSequences`: must be an array of strings/,
    ],
    [
      'maxOutputTokens 0',
      { maxOutputTokens: 0 },
      /^`settings\.maxOutputTokens`: must be a whole number of tokens, at least 1 \(got 0\)/,
    ],
    ['maxOutputTokens 1.5', { maxOutputTokens: 1.5 }, /^`settings\.maxOutputTokens`: must be a whole number/],
    [
      'maxOutputTokens as text',
      { maxOutputTokens: '500' },
      /^`settings\.maxOutputTokens`: must be a whole number .*\(got "500"\)/,
    ],
    ['maxOutputTokens Infinity', { maxOutputTokens: Infinity }, /^`settings\.maxOutputTokens`/],
    ['temperature 3', { temperature: 3 }, /^`settings\.temperature`: must be a number from 0 to 2 \(got 3\)/],
    ['temperature -0.1', { temperature: -0.1 }, /^`settings\.temperature`: must be a number from 0 to 2/],
    [
      'temperature NaN',
      { temperature: NaN },
      /^`settings\.temperature`: must be a number from 0 to 2 \(got NaN\)/,
    ],
    ['topP 1.5', { topP: 1.5 }, /^`settings\.topP`: must be a number from 0 to 1/],
    ['seed 1.5', { seed: 1.5 }, /^`settings\.seed`: must be a whole number \(got 1\.5\)/],
    ['seed as text', { seed: '42' }, /^`settings\.seed`: must be a whole number/],
    ['topK 0', { topK: 0 }, /^`settings\.topK`: must be a whole number, at least 1 \(got 0\)/],
    ['topK 1.5', { topK: 1.5 }, /^`settings\.topK`: must be a whole number, at least 1/],
    [
      'presencePenalty 3',
      { presencePenalty: 3 },
      /^`settings\.presencePenalty`: must be a number from -2 to 2 \(got 3\)/,
    ],
    [
      'frequencyPenalty -2.5',
      { frequencyPenalty: -2.5 },
      /^`settings\.frequencyPenalty`: must be a number from -2 to 2 \(got -2\.5\)/,
    ],
    [
      'frequencyPenalty as text',
      { frequencyPenalty: '1' },
      /^`settings\.frequencyPenalty`: must be a number from -2 to 2 \(got "1"\)/,
    ],
    [
      'a reasoning effort the AI SDK does not have',
      { reasoning: 'extreme' },
      /^`settings\.reasoning`: must be one of provider-default, none, minimal, low, medium, high, xhigh, max \(got "extreme"\)/,
    ],
    [
      'an unknown setting',
      { topQ: 40 },
      /^`settings\.topQ`: unknown setting: the settings are maxOutputTokens, temperature, topP, topK, presencePenalty, frequencyPenalty, stopSequences, seed, reasoning$/,
    ],
    [
      "the AI SDK's old name",
      { maxTokens: 100 },
      /^`settings\.maxTokens`: it is called `maxOutputTokens`; unknown setting/,
    ],
    ['maxRetries', { maxRetries: 3 }, /^`settings\.maxRetries`: retries are the call's plan: give `retry`/],
    [
      'headers',
      { headers: { 'x-request-tag': 'k' } },
      /^`settings\.headers`: give request headers as the call's own `headers` field, beside `settings`; unknown setting/,
    ],
    [
      'providerOptions',
      { providerOptions: { openai: {} } },
      /^`settings\.providerOptions`: give provider options as the call's own `providerOptions` field, beside `settings`/,
    ],
    [
      'toolChoice',
      { toolChoice: { type: 'auto' } },
      /^`settings\.toolChoice`: give it as the call's own `toolChoice` field, beside `settings`/,
    ],
    [
      'abortSignal',
      { abortSignal: {} },
      /^`settings\.abortSignal`: cancel the workflow \(or the scope around `callModel`\) instead/,
    ],
    ['settings as a list', [1], /^`settings`: must be an object/],
    ['settings as text', 'temperature=0', /^`settings`: must be an object/],
    ['settings null', null, /^`settings`: must be an object/],
  ])('refuses %s, naming the field and the fix', (_name, settings, message) => {
    expect(() => validateCallInput(call(settings))).toThrow(InvalidModelCallInputError);
    expect(() => validateCallInput(call(settings))).toThrow(message);
    expect(() => checkModelCall(call(settings))).toThrow(message);
  });

  it("checks an agent turn's settings the same way, as the turn's input error", () => {
    const turn = { model: 'local:m', prompt: 'hi', settings: { stopSequences: 'END' } };
    expect(() => checkAgentTurn(turn)).toThrow(InvalidAgentTurnInputError);
    expect(() => checkAgentTurn(turn)).toThrow(/^`settings\.stopSequences`: must be an array of strings/);
    expect(() => checkAgentTurn({ ...turn, settings: { temperature: 0.2, seed: 1 } })).not.toThrow();
  });

  it('takes no settings at all', () => {
    expect(() => checkSettings(undefined)).not.toThrow();
  });
});
