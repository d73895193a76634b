import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findLeaks, leakReport } from '../../harness/secret-scan.js';
import { leakNeedles, makeTestSecrets } from '../../harness/secrets.js';

/**
 * The scan every integration history goes through must be able to fail: a real recorded history (the replay
 * suite's `bad-request`, a 400 whose failure went through history) is clean, and the same history with a
 * credential put into any of its strings or payloads is caught, at the right event.
 */
const secrets = makeTestSecrets();
const needles = leakNeedles(secrets);
const recorded = readFileSync(new URL('../../replay/histories/bad-request.json', import.meta.url), 'utf8');

type Event = Record<string, unknown> & { eventId: string };
const events = () => (JSON.parse(recorded) as { events: Event[] }).events;

/**
 * The recorded history with the string at `path` (dotted, array items by index) of the event `eventId` changed;
 * a payload's `data` is decoded from base64 first and encoded again after.
 */
function tampered(eventId: string, path: string, change: (text: string) => string): string {
  const all = events();
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node: unknown = all.find((e) => e.eventId === eventId);
  for (const key of keys) node = (node as Record<string, unknown>)[key];
  const parent = node as Record<string, string>;
  const value = parent[last] as string;
  parent[last] =
    last === 'data'
      ? Buffer.from(change(Buffer.from(value, 'base64').toString('utf8'))).toString('base64')
      : change(value);
  return JSON.stringify({ events: all });
}

const FAILURE = 'activityTaskFailedEventAttributes.failure';

describe('the history scan for credentials', () => {
  it('finds nothing in a real history that holds none', () => {
    expect(findLeaks(recorded, needles)).toEqual([]);
  });

  it.each([
    [
      'the failure message of an attempt',
      '8',
      `${FAILURE}.message`,
      () => `invalid api key: Bearer ${secrets.apiKey}`,
      'Bearer sk-loopback-SECRET-<masked>',
    ],
    [
      "the attempt's stack trace",
      '8',
      `${FAILURE}.stackTrace`,
      (t: string) => `${t}\n    at ${secrets.anthropicKey}`,
      'sk-ant-loopback-SECRET-<masked>',
    ],
    [
      "the attempt's failure details (a base64 payload)",
      '8',
      `${FAILURE}.applicationFailureInfo.details.payloads.0.data`,
      (t: string) => t.replace('"message":"', `"message":"x-api-key: ${secrets.anthropicKey} `),
      'sk-ant-loopback-SECRET-<masked>',
    ],
    [
      "the workflow's input (the prompt)",
      '1',
      'workflowExecutionStartedEventAttributes.input.payloads.0.data',
      (t: string) => t.replace('"prompt":"', `"prompt":"${secrets.proxyToken} `),
      'proxy-SECRET-<masked>',
    ],
    [
      "an activity's summary (user metadata)",
      '6',
      'userMetadata.summary.data',
      (t: string) => t.replace(/"$/, ` ${secrets.apiKey}"`),
      'sk-loopback-SECRET-<masked>',
    ],
    [
      "only the random tail of a key, in the workflow's failure",
      '13',
      'workflowExecutionFailedEventAttributes.failure.message',
      (t: string) => `${t} (key ending …${secrets.apiKey.slice(-24)})`,
      '<masked>',
    ],
  ])('catches a credential in %s, naming the event', (_where, eventId, path, change, form) => {
    const leaks = findLeaks(tampered(eventId, path, change), needles, 'wf-1');
    expect(leaks).toHaveLength(1);
    expect(leaks[0]?.where).toMatch(new RegExp(`^wf-1 event ${eventId} \\(EVENT_TYPE_`));
    expect(leaks[0]?.form).toBe(form);
    const report = leakReport(leaks);
    expect(report).toContain(`wf-1 event ${eventId}`);
    for (const secret of Object.values(secrets)) expect(report).not.toContain(secret);
  });

  it("does not match another run's credentials", () => {
    const other = makeTestSecrets();
    const text = tampered('8', `${FAILURE}.message`, () => other.apiKey);
    expect(findLeaks(text, needles)).toEqual([]);
    expect(findLeaks(text, leakNeedles(other))).toHaveLength(1);
  });
});
