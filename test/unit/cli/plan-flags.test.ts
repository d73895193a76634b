import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidRetryPlanError, validatePlan } from '../../../policy/index.js';
import { UsageError } from '../../../cli/args.js';
import { flagOfField, planFromFlags, planRefusal } from '../../../cli/plan-flags.js';
import type { PlanFlagValues } from '../../../cli/plan-flags.js';
import { runCli } from '../../harness/cli.js';

/** Nothing may reach a server in these tests: this address refuses every connection. */
const NO_SERVER = { TEMPORAL_ADDRESS: '127.0.0.1:1', MODEL_RETRY_PROVIDERS: '' };

function usageError(values: PlanFlagValues): string {
  try {
    planFromFlags(values);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(values)} to be refused`);
}

/** The CLI's wording of what `validatePlan` says about the plan the flags make. */
function refusalOf(values: PlanFlagValues, nowMs = Date.now()): string {
  try {
    validatePlan(planFromFlags(values), { nowMs, chainStartMs: nowMs });
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) return planRefusal(error);
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(values)} to be refused by validatePlan`);
}

describe('plan flags make a retry plan', () => {
  it('no plan flag means no plan (one attempt, with a hint)', () => {
    expect(planFromFlags({})).toBeUndefined();
  });

  it('--no-retry is retry: false', () => {
    expect(planFromFlags({ 'no-retry': true })).toBe(false);
  });

  it('--waits 10,30 is an explicit list in ms', () => {
    expect(planFromFlags({ waits: '10,30' })).toEqual({ waits: [10, 30] });
    expect(planFromFlags({ waits: ' 1_000 , 5000 ' })).toEqual({ waits: [1000, 5000] });
  });

  it('--backoff takes key=value pairs, keys in any case, and `default`', () => {
    expect(planFromFlags({ backoff: 'initialMs=500,factor=3' })).toEqual({
      backoff: { initialMs: 500, factor: 3 },
    });
    expect(planFromFlags({ backoff: 'maxms=9000,JITTERMS=0' })).toEqual({
      backoff: { maxMs: 9000, jitterMs: 0 },
    });
    expect(planFromFlags({ backoff: 'default' })).toEqual({ backoff: {} });
  });

  it('the number flags set their plan fields, --deadline as deadlineInMs', () => {
    expect(
      planFromFlags({
        'max-attempts': '5',
        deadline: '120000',
        reserve: '10000',
        'attempt-timeout': '30000',
        'min-attempt': '500',
      }),
    ).toEqual({
      maxAttempts: 5,
      deadlineInMs: 120_000,
      reserveMs: 10_000,
      attemptTimeoutMs: 30_000,
      minAttemptMs: 500,
    });
  });

  it('any plan flag alone turns retry on with the default backoff', () => {
    const plan = planFromFlags({ 'max-attempts': '3' });
    expect(plan).toEqual({ maxAttempts: 3 });
    expect(validatePlan(plan, { nowMs: 0, chainStartMs: 0 }).backoff).toBeDefined();
  });
});

describe('plan flags refuse bad syntax, naming the flag and the fix', () => {
  it.each([
    ['a non-number wait', { waits: '10,soon' }, /`--waits` item 2 is "soon".*--waits 1000,5000/],
    ['an empty waits list', { waits: '' }, /`--waits` is empty/],
    ['a backoff without key=value', { backoff: 'fast' }, /`--backoff` takes key=value pairs/],
    [
      'an unknown backoff key',
      { backoff: 'base=3' },
      /`--backoff` has no key "base": the keys are initialMs/,
    ],
    ['a non-number backoff value', { backoff: 'factor=x' }, /`--backoff factor=` must be a number/],
    ['a deadline in other units', { deadline: '30s' }, /`--deadline` must be a number of milliseconds/],
    ['a non-number attempt count', { 'max-attempts': 'many' }, /`--max-attempts` must be a number/],
  ])('%s', (_name, values, message) => {
    expect(usageError(values as PlanFlagValues)).toMatch(message);
  });

  it('--no-retry with another plan flag, naming both and the way out', () => {
    const message = usageError({ 'no-retry': true, waits: '10', deadline: '90000' });
    expect(message).toContain('`--no-retry` cannot be given with `--waits`, `--deadline`');
    expect(message).toContain('--max-attempts 1 --attempt-timeout MS');
  });
});

describe("validatePlan's refusals are worded in flags", () => {
  it('maps plan fields to the flags that set them', () => {
    expect(flagOfField('waits')).toBe('--waits');
    expect(flagOfField('waits[3]')).toBe('--waits');
    expect(flagOfField('backoff.maxMs')).toBe('--backoff maxMs=');
    expect(flagOfField('maxAttempts')).toBe('--max-attempts');
    expect(flagOfField('deadlineInMs')).toBe('--deadline');
    expect(flagOfField('reserveMs')).toBe('--reserve');
    expect(flagOfField('attemptTimeoutMs')).toBe('--attempt-timeout');
    expect(flagOfField('minAttemptMs')).toBe('--min-attempt');
  });

  it('a deadline without room for the reserve names --deadline and --reserve', () => {
    expect(refusalOf({ deadline: '30000' })).toBe(
      '`--deadline` leaves 30000 ms at submission, less than `--reserve` + `--min-attempt` (61000 ms): ' +
        'move the deadline later, or lower `--reserve`.',
    );
  });

  it('both --waits and --backoff, and a negative wait: every problem, each with its flag', () => {
    const message = refusalOf({ waits: '10,-5', backoff: 'factor=2' });
    expect(message).toMatch(/^2 problems with the retry flags:/);
    expect(message).toContain('`--waits` item 2 is -5');
    expect(message).toContain('`--backoff` cannot be given with `--waits`');
    expect(message).not.toContain('RetryPlan');
  });

  it.each([
    [{ 'max-attempts': '5000' }, '`--max-attempts` is 5000, over the limit of 1000'],
    [{ 'max-attempts': '2.5' }, '`--max-attempts` is 2.5, but must be a whole number'],
    [{ reserve: '-1' }, '`--reserve` is -1, but must be at least 0'],
    [{ 'attempt-timeout': '0' }, '`--attempt-timeout` is 0, but must be more than 0'],
    [
      { 'attempt-timeout': '500', 'min-attempt': '1000' },
      '`--min-attempt` (1000) cannot be more than `--attempt-timeout` (500)',
    ],
    [
      { backoff: 'initialMs=5000,maxMs=1000' },
      '`--backoff maxMs=` (1000) cannot be less than `--backoff initialMs=` (5000)',
    ],
  ])('%j', (values, message) => {
    expect(refusalOf(values as PlanFlagValues)).toContain(message);
  });
});

describe('model-retry call refuses bad input with exit 2 before connecting', () => {
  it.each([
    [['--prompt', 'hi'], '`--model` is missing'],
    [['--model', 'local:fast'], '`--prompt` is missing'],
    [['--model', 'fast', '--prompt', 'hi'], '`--model`: "fast" is not a model name'],
    [['--model', 'local:fast', '--prompt', 'hi', '--deadline', '5000'], 'lower `--reserve`'],
    [['--model', 'local:fast', '--prompt', 'hi', '--waits', '1,x'], '`--waits` item 2 is "x"'],
    [['--model', 'local:fast', '--prompt', 'hi', '--no-retry', '--waits', '1'], '`--no-retry` cannot'],
    [['--model', 'local:fast', '--prompt', 'hi', 'extra'], 'unexpected argument "extra"'],
    [['--model', 'local:fast', '--prompt', 'hi', '--workflow-id', ''], '`--workflow-id` is empty'],
    [['--model', 'local:fast', '--prompt', 'hi', '--retries', '3'], "'--retries'"],
  ])('call %j', async (args, message) => {
    const { code, stdout, stderr } = await runCli(['call', ...args], NO_SERVER);
    expect(stderr).toContain(message);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('cannot reach Temporal');
  });

  it('explains its flags and exit codes with --help', async () => {
    const { code, stdout } = await runCli(['call', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--model P:M', '--waits', '--backoff', '--no-retry', '--deadline MS', '--json'])
      expect(stdout).toContain(flag);
    expect(stdout).toContain('Ctrl-C detaches');
    expect(stdout).toMatch(/3 outcome unknown/);
  });

  it('cancel needs exactly one workflow id', async () => {
    const { code, stderr } = await runCli(['cancel'], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain('model-retry cancel WORKFLOW_ID');
  });

  it('says so, exit 1, when Temporal cannot be reached (nothing started)', async () => {
    const { code, stderr } = await runCli(['call', '--model', 'local:fast', '--prompt', 'hi', '--no-retry'], {
      ...NO_SERVER,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 60_000);
});

describe('model-retry call refuses a prompt with nothing in it, or from a file it cannot read, before connecting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-prompt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const blank = join(dir, 'blank.txt');
  writeFileSync(blank, ' \n\n ');
  const call = ['call', '--model', 'local:fast', '--no-retry'];

  it.each([
    ['an empty --prompt', ['--prompt', ''], '`--prompt`: is empty: give the text to send'],
    ['a blank --prompt beside --system', ['--prompt', '  ', '--system', 'be brief'], '`--prompt`: is empty'],
    ['a missing --prompt-file', ['--prompt-file', join(dir, 'missing.txt')], 'cannot be read (ENOENT)'],
    ['a blank --prompt-file', ['--prompt-file', blank], 'holds no text'],
    ['an empty --prompt-file path', ['--prompt-file', ''], '`--prompt-file` is empty'],
    ['--prompt and --prompt-file both', ['--prompt', 'hi', '--prompt-file', blank], 'not both'],
  ])('%s', async (_name, args, message) => {
    const { code, stdout, stderr } = await runCli([...call, ...args], NO_SERVER);
    expect(stderr).toContain(message);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('cannot reach Temporal');
  });
});

describe('model-retry worker --providers refuses a bad file with exit 2 before connecting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-providers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a file with a bad base URL, naming the field', async () => {
    const path = file('bad-url.json', '{ "local": { "type": "openai-compatible", "baseURL": "nope" } }');
    const { code, stderr } = await runCli(['worker', '--providers', path], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain('--providers cannot be used');
    expect(stderr).toContain('`local.baseURL` is not a URL');
  });

  it('a file that is not JSON', async () => {
    const path = file('not-json.json', '{ local: ');
    const { code, stderr } = await runCli(['worker', '--providers', path], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain('not valid JSON');
  });

  it('a file that does not exist', async () => {
    const { code, stderr } = await runCli(['worker', '--providers', join(dir, 'missing.json')], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain('cannot read the providers file (ENOENT)');
  });

  it.each([
    ['a directory', () => dir, 'cannot read the providers file (EISDIR)'],
    ['an empty file', () => file('empty.json', ''), 'not valid JSON'],
    ['a list', () => file('list.json', '[]'), 'expected an object of providers by name'],
  ])('%s, naming the file and the problem', async (_name, path, problem) => {
    const { code, stderr } = await runCli(['worker', '--providers', path()], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain(`--providers cannot be used: ${path()}: `);
    expect(stderr).toContain(problem);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('a bad file named by MODEL_RETRY_PROVIDERS, naming the variable', async () => {
    const path = file(
      'key.json',
      '{ "local": { "type": "openai-compatible", "baseURL": "http://x/v1", "apiKey": "k" } }',
    );
    const { code, stderr } = await runCli(['worker'], { ...NO_SERVER, MODEL_RETRY_PROVIDERS: path });
    expect(code).toBe(2);
    expect(stderr).toContain('named by MODEL_RETRY_PROVIDERS');
    expect(stderr).toContain('keys never go in this file');
  });
});
