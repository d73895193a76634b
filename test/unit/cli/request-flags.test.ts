import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/args.js';
import {
  headersFromFlags,
  providerOptionsFromFlag,
  requestFlagOf,
  toolChoiceFromFlag,
} from '../../../cli/request-flags.js';
import { runCli } from '../../harness/cli.js';

describe('--provider-options JSON', () => {
  it('is the object keyed by provider, as given', () => {
    expect(providerOptionsFromFlag(undefined)).toBeUndefined();
    expect(
      providerOptionsFromFlag('{"anthropic":{"thinking":{"type":"enabled","budgetTokens":2000}}}'),
    ).toEqual({
      anthropic: { thinking: { type: 'enabled', budgetTokens: 2000 } },
    });
  });

  it.each([
    ['{openai: {}}', '`--provider-options` is not JSON ('],
    ['', '`--provider-options` is not JSON ('],
    ['[1]', '`--provider-options` must be a JSON object keyed by provider'],
    ['"low"', '`--provider-options` must be a JSON object keyed by provider'],
    ['{"openai":"low"}', '`--provider-options` "openai" must hold an object of that provider\'s options'],
  ])('refuses %j, naming the flag', (text, message) => {
    expect(() => providerOptionsFromFlag(text)).toThrow(UsageError);
    expect(() => providerOptionsFromFlag(text)).toThrow(message);
  });
});

describe('--header NAME:VALUE', () => {
  it('makes the headers, the value trimmed and colons after the first kept', () => {
    expect(headersFromFlags(undefined)).toBeUndefined();
    expect(headersFromFlags(['X-Trace-Id: abc', 'X-When:12:30'])).toEqual({
      'X-Trace-Id': 'abc',
      'X-When': '12:30',
    });
  });

  it.each([
    [['no-colon'], '`--header` takes NAME:VALUE'],
    [[':value'], '`--header` takes NAME:VALUE'],
    [['bad name:value'], '`--header` takes NAME:VALUE'],
    [['X-A:1', 'x-a:2'], '`--header x-a` is given twice'],
    [['X-A:one\ntwo'], '`--header X-A`: a header value is one line'],
  ])('refuses %j, naming the flag', (given, message) => {
    expect(() => headersFromFlags(given)).toThrow(UsageError);
    expect(() => headersFromFlags(given)).toThrow(message);
  });
});

describe('--tool-choice', () => {
  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'required' }],
    ['tool:get_time', { type: 'tool', toolName: 'get_time' }],
  ])('%s is %j', (text, choice) => {
    expect(toolChoiceFromFlag(text)).toEqual(choice);
  });

  it.each(['maybe', 'tool:', 'Auto'])('refuses %j, naming the choices', (text) => {
    expect(() => toolChoiceFromFlag(text)).toThrow(
      '`--tool-choice` is one of auto, none, required, or tool:NAME',
    );
  });
});

describe('a refused request field, as the flag that set it', () => {
  it.each([
    ['providerOptions', '--provider-options'],
    ['providerOptions.openai.apiKey', '--provider-options openai.apiKey'],
    ['headers', '--header'],
    ['headers.Authorization', '--header Authorization'],
    ['toolChoice', '--tool-choice'],
    ['toolChoice.toolName', '--tool-choice'],
    ['settings.topK', undefined],
  ])('%s -> %s', (field, flag) => {
    expect(requestFlagOf(field)).toBe(flag);
  });
});

describe('model-retry call refuses a bad request flag with exit 2 before connecting', () => {
  const NO_SERVER = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
  it.each([
    [['--provider-options', '{"openai":'], '`--provider-options` is not JSON'],
    [
      ['--provider-options', '{"openai":{"apiKey":"sk-0123456789abcdef"}}'],
      '`--provider-options openai.apiKey`: holds a credential',
    ],
    [['--header', 'Authorization:Bearer abc'], '`--header Authorization`: is a credential header'],
    [['--header', 'X-Debug:sk-0123456789abcdef'], '`--header X-Debug`: looks like a credential'],
    [['--tool-choice', 'tool:calculator'], "`--tool-choice`: must name one of the call's tools"],
  ])('call %j', async (flags, message) => {
    const { code, stdout, stderr } = await runCli(
      ['call', '--model', 'local:fast', '--prompt', 'hi', '--no-retry', ...flags],
      NO_SERVER,
    );
    expect(stderr).toContain(message);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('0123456789abcdef');
  });

  it('turn refuses a credential header the same way', async () => {
    const { code, stderr } = await runCli(
      ['turn', '--model', 'local:fast', '--prompt', 'hi', '--no-retry', '--header', 'x-api-key:k'],
      NO_SERVER,
    );
    expect(code).toBe(2);
    expect(stderr).toContain('`--header x-api-key`: is a credential header');
  });

  it.each(['call', 'turn'])('%s --help names the new flags', async (command) => {
    const { code, stdout } = await runCli([command, '--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--image FILE',
      '--file FILE',
      '--provider-options JSON',
      '--header NAME:VALUE',
      '--top-k N',
      '--reasoning EFFORT',
    ])
      expect(stdout).toContain(flag);
    if (command === 'call') expect(stdout).toContain('--tool-choice');
  });
});
