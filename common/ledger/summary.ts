import { isAction } from '../../policy/index.js';
import type { Action } from '../../policy/index.js';
import type { AttemptRecord } from '../call.js';

/**
 * The summaries of a wait's timer and of a cooling check's marker: readable in the Temporal UI, and read back by
 * the history reader, since after a decision they may be the only trace of it (a history read during, or
 * cancelled in, the wait). The format is the one recorded histories carry, so old runs still read:
 * - wait: `retry in 30 ms after ServerError 502 (c1.2 retry-same)`
 * - check: `cooling check of local:b: retry in 0 ms after ServerError 502 (c1.1 advance)`, or
 *   `cooling check of local:b` when no failed attempt came before.
 */

/** The decision a summary names: the failed attempt it follows and the action taken (one of policy's `ACTIONS`). */
export interface NamedDecision {
  modelCallId: string;
  action?: Action;
}

const RETRY_IN = 'retry in ';
const CHECK_PREFIX = 'cooling check of ';
/** An attempt's id, `<callId>.<attempt>` (`c3.2`). */
const MODEL_CALL_ID = /^c\d+\.\d+$/;

/** The summary of a wait of `waitMs` after the failed attempt `failed` (whose failure names the action taken). */
export function waitSummary(waitMs: number, failed: AttemptRecord | undefined): string {
  const f = failed?.failure;
  const cause = f ? ` after ${f.class}${f.status !== undefined ? ` ${f.status}` : ''}` : '';
  const tag = failed ? ` (${failed.modelCallId}${f?.action ? ` ${f.action}` : ''})` : '';
  return `${RETRY_IN}${waitMs} ms${cause}${tag}`;
}

/**
 * The summary of a cooling check before an attempt on `model`: after a failed attempt it names the decision as a
 * wait's timer does. After a decision with no wait the check's marker is the only event between the decision and
 * the next attempt, so a history that ends there (a cancel or a stop during the check) still tells what was
 * decided.
 */
export function checkSummary(model: string, waitMs: number, failed: AttemptRecord | undefined): string {
  return failed?.failure
    ? `${CHECK_PREFIX}${model}: ${waitSummary(waitMs, failed)}`
    : `${CHECK_PREFIX}${model}`;
}

/**
 * The attempt and action a wait's (or a check's) summary names: its closing `(<modelCallId>[ <action>])`, the
 * action checked against policy's own list of actions. `undefined` for any other text (another timer's summary).
 */
export function readWaitSummary(summary: string): NamedDecision | undefined {
  const open = summary.lastIndexOf('(');
  if (open < 0 || !summary.endsWith(')')) return undefined;
  const words = summary.slice(open + 1, -1).split(' ');
  const [modelCallId, action] = words;
  if (words.length > 2 || modelCallId === undefined || !MODEL_CALL_ID.test(modelCallId)) return undefined;
  if (action === undefined) return { modelCallId };
  return isAction(action) ? { modelCallId, action } : undefined;
}

/** The decision a cooling check's summary names: the attempt, its action and the wait (see `checkSummary`). */
export function readCheckSummary(summary: string): (NamedDecision & { retryInMs: number }) | undefined {
  if (!summary.startsWith(CHECK_PREFIX)) return undefined;
  const at = summary.indexOf(`: ${RETRY_IN}`);
  if (at < 0) return undefined;
  const waitText = summary.slice(at + 2 + RETRY_IN.length).split(' ', 2);
  const retryInMs = waitText[1] === 'ms' && /^\d+$/.test(waitText[0] ?? '') ? Number(waitText[0]) : undefined;
  const named = readWaitSummary(summary);
  if (retryInMs === undefined || !named) return undefined;
  return { ...named, retryInMs };
}
