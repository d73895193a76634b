import { describe, expect, it } from 'vitest';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import { checkModelCall } from '../../../client/model-call-client.js';
import {
  InvalidModelCallInputError,
  checkSettings,
  validateCallInput,
} from '../../../workflows/call/call-input.js';
import { InvalidAgentTurnInputError } from '../../../workflows/turn/turn-input.js';

const call = (settings: unknown) => ({ model: 'local:m', prompt: 'hi', settings });

describe("a call's settings are checked before anything starts", () => {
  it.each([
    [{}],
    [{ maxOutputTokens: 1 }],
    [{ maxOutputTokens: 200_000, temperature: 0, topP: 1, stopSequences: ['END', '\n\n'], seed: -7 }],
    [{ temperature: 2, topP: 0 }],
    [{ stopSequences: [] }],
  ])('takes %j', (settings) => {
    expect(() => validateCallInput(call(settings))).not.toThrow();
  });

  it.each([
    // what the issue met: a string spread into letters by the provider
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
    [
      'an unknown setting',
      { topK: 40 },
      /^`settings\.topK`: unknown setting: the settings are maxOutputTokens, temperature, topP, stopSequences, seed$/,
    ],
    [
      "the AI SDK's old name",
      { maxTokens: 100 },
      /^`settings\.maxTokens`: it is called `maxOutputTokens`; unknown setting/,
    ],
    ['maxRetries', { maxRetries: 3 }, /^`settings\.maxRetries`: retries are the call's plan: give `retry`/],
    [
      'headers',
      { headers: { 'x-api-key': 'k' } },
      /^`settings\.headers`: headers belong to the provider in the worker/,
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
