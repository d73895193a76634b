import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandleWithStartDetails } from '@temporalio/client';
import { validatePlan } from '../policy/index.js';
import {
  checkOnCutPlan,
  InvalidModelCallInputError,
  plainInput,
  streamOf,
  validateCallInput,
} from '../common/call-input/call-input.js';
import { schemaProblem } from '../common/json-schema.js';
import { checkCallSize } from './call-size.js';
import { fairnessWeightProblem, startForTenant } from './tenant-start.js';
import type { ModelCallInput } from '../common/call.js';
import { modelCallWorkflow } from '../workflows/call/model-call-workflow.js';

/** Options of `startModelCall`. */
export interface StartModelCallOptions {
  taskQueue: string;
  /** @default `model-call-<uuid>` */
  workflowId?: string;
  /**
   * Eager workflow start: asks the server to hand the call's first workflow task back in the start response, to a
   * worker of this process, skipping a trip through the task queue. It takes effect only when `client` is built on
   * the `NativeConnection` of a worker in this same process that polls `taskQueue` (a host like the demo, which
   * runs its own worker); otherwise the server starts the call as usual. In the concurrency benchmark it brought
   * `modelCallWorkflow` to the floor's throughput and latency (BENCHMARKS.md, section 3). @default false
   */
  requestEagerStart?: boolean;
  /**
   * Credential headers the call may send by name, as the worker's own `allowHeaders` allows them (the client checks
   * before anything starts, without the worker). @default none
   */
  allowHeaders?: string[];
  /**
   * The weight of the call's tenant (`input.tenant`) in Temporal's fairness, for the workflow's own tasks (its
   * attempts take the worker's tenants file's). Absent: Temporal's default (1) or the task queue's weight for the
   * key. From 0.001 to 1000; only with a tenant.
   */
  fairnessWeight?: number;
}

/**
 * Starts a durable model call (`modelCallWorkflow`) after checking its input, retry plan and size here, so bad
 * input is refused before anything starts: throws `InvalidModelCallInputError` or `InvalidRetryPlanError`, whose
 * messages name the field and the fix. The size is measured as `client` stores the input (`checkCallSize`): over
 * Temporal's 2 MB payload limit without a payload store, the message names the largest field. The handle says
 * whether the call started eagerly (`eagerlyStarted`, see `requestEagerStart`).
 */
export async function startModelCall(
  client: Client,
  input: ModelCallInput,
  options: StartModelCallOptions,
): Promise<WorkflowHandleWithStartDetails<typeof modelCallWorkflow>> {
  checkModelCall(input, Date.now(), options.allowHeaders);
  checkFairnessWeight(options.fairnessWeight, input.tenant, InvalidModelCallInputError);
  // Tools in the AI SDK's record shape (a zod schema, a `jsonSchema()`) and messages with bytes or URLs become
  // plain JSON before they cross.
  const plain = plainInput(input);
  await checkCallSize(client, plain);
  const workflowId = options.workflowId ?? `model-call-${randomUUID()}`;
  return startForTenant(
    (tenant) =>
      client.workflow.start(modelCallWorkflow, {
        taskQueue: options.taskQueue,
        workflowId,
        args: [plain],
        ...(options.requestEagerStart === true ? { requestEagerStart: true } : {}),
        ...tenant,
      }),
    input.tenant,
    options.fairnessWeight,
  );
}

/** Refuses a `fairnessWeight` that is no weight, or one given without a tenant (it would weigh nothing). */
export function checkFairnessWeight(
  fairnessWeight: unknown,
  tenant: string | undefined,
  InputError: new (field: string, message: string) => Error,
): void {
  const problem = fairnessWeightProblem(fairnessWeight);
  if (problem !== undefined) throw new InputError('fairnessWeight', problem);
  if (fairnessWeight !== undefined && tenant === undefined) {
    throw new InputError('fairnessWeight', "weighs the call's tenant: give `tenant` too, or leave it out");
  }
}

/** Checks a call's input and plan as of now, as `startModelCall` does; throws on the first problem. */
export function checkModelCall(
  input: unknown,
  nowMs = Date.now(),
  allowHeaders: readonly string[] = [],
): asserts input is ModelCallInput {
  validateCallInput(input, { allowHeaders: allowHeaders.map((h) => h.toLowerCase()) });
  checkOutputSchema(input);
  const plan = validatePlan(input.retry, { nowMs, chainStartMs: nowMs, atSubmission: true });
  checkOnCutPlan(streamOf(input), plan.maxAttempts);
}

/**
 * Refuses a call whose `output.schema` does not compile (ajv), naming the field and what ajv said: workflow code
 * cannot compile a schema, so this is the check before anything starts.
 */
export function checkOutputSchema(input: ModelCallInput): void {
  const schema = input.output?.schema;
  if (schema === undefined) return;
  const problem = schemaProblem(schema);
  if (problem !== undefined) {
    throw new InvalidModelCallInputError(
      'output.schema',
      `is not a JSON Schema that compiles (${problem}): fix it, or check it with a JSON Schema validator`,
    );
  }
}
