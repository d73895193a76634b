import { settle } from './settle.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';
import { readTurnHistory, startAgentTurn } from '../../client/agent-turn-client.js';
import type { TurnHistory } from '../../client/agent-turn-client.js';
import { readCallHistory } from '../../client/history-reader.js';
import type { agentTurnWorkflow } from '../../workflows/turn/agent-turn.js';
import { attemptsQuery } from '../../common/queries.js';
import type { AttemptRecord } from '../../common/call.js';
import type { WireMessage } from '../../common/request.js';
import { turnStatusQuery } from '../../common/queries.js';
import type { AgentTurnInput, AgentTurnPartial, AgentTurnResult, TurnStatus } from '../../common/turn.js';
import { expectNoSecrets, expectProviderSawSent } from './model-call.js';
import type { ModelCallFixture } from './model-call.js';
import type { TestWorker } from './temporal.js';

/** What one turn did, seen from every side: result or failure, the workflow's records, the histories'. */
export interface TurnRun {
  handle: WorkflowHandle<typeof agentTurnWorkflow>;
  result?: AgentTurnResult;
  failure?: ApplicationFailure;
  /** The failure's partial turn (`details[0]`, or its `turn` for `ModelCallFailed`). */
  partial?: AgentTurnPartial;
  records: AttemptRecord[];
  status: TurnStatus;
  history: TurnHistory;
}

/** What `runTurn` needs of a fixture: a client, the loopback provider, and the list of histories to replay. */
export type TurnFixture = Pick<ModelCallFixture, 'lp' | 'histories'> & { temporal: { client: Client } };

export async function runTurn(
  fx: TurnFixture,
  worker: Pick<TestWorker, 'taskQueue'>,
  input: AgentTurnInput,
): Promise<TurnRun> {
  const handle = await startAgentTurn(fx.temporal.client, input, { taskQueue: worker.taskQueue });
  return finishTurn(fx, handle);
}

/**
 * Waits for a turn's end, then checks that the history reader rebuilds the workflow's own attempt records (over
 * the chain of runs and, run by run, with `readCallHistory` alone) and that the provider saw exactly them.
 */
export async function finishTurn(
  fx: TurnFixture,
  handle: WorkflowHandle<typeof agentTurnWorkflow>,
): Promise<TurnRun> {
  const { result, failure } = await settle(handle);
  const records = await handle.query(attemptsQuery);
  const status = await handle.query(turnStatusQuery);
  const history = await readTurnHistory(fx.temporal.client, handle.workflowId);
  expect(history.attempts).toEqual(records);
  const own = await handle.fetchHistory();
  expectNoSecrets(own, handle.workflowId);
  if (history.runIds.length === 1 && result?.lastDecision === undefined) {
    expect(readCallHistory(own).attempts).toEqual(records);
    fx.histories.push({ workflowId: handle.workflowId, history: own });
  }
  expectProviderSawSent(fx.lp, records);
  if (result) expect(result.steps.flatMap((s) => s.attempts)).toEqual(records);
  const details = failure?.details?.[0] as (AgentTurnPartial & { turn?: AgentTurnPartial }) | undefined;
  const partial = details?.turn ?? details;
  return {
    handle,
    records,
    status,
    history,
    ...(result ? { result } : {}),
    ...(failure ? { failure } : {}),
    ...(partial ? { partial } : {}),
  };
}

/** The tool results of a turn's messages (wire messages), in order, across its tool messages. */
export function toolResults(
  messages: readonly WireMessage[],
): Extract<Extract<WireMessage, { role: 'tool' }>['content'][number], { type: 'tool-result' }>[] {
  return messages.flatMap((m) =>
    m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p] : [])) : [],
  );
}
