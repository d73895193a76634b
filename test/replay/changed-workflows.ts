/**
 * A deliberately incompatible change, for the replay test only: `modelCallWorkflow` (same workflow type name)
 * that starts a timer before the first attempt, and likewise `agentTurnWorkflow`. Every recorded history must fail to replay against it.
 */
import { sleep } from '@temporalio/workflow';
import { modelCallWorkflow as current } from '../../workflows/call/model-call-workflow.js';
import type { ModelCallInput, ModelCallResult } from '../../common/call.js';
import { agentTurnWorkflow as currentTurn } from '../../workflows/turn/agent-turn.js';
import type { AgentTurnInput, AgentTurnResult } from '../../common/turn.js';

export async function modelCallWorkflow(input: ModelCallInput): Promise<ModelCallResult> {
  await sleep(1);
  return current(input);
}

/** `agentTurnWorkflow` (same type name), with a timer before its first step. */
export async function agentTurnWorkflow(input: AgentTurnInput): Promise<AgentTurnResult> {
  await sleep(1);
  return currentTurn(input);
}
