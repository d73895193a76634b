import { ServiceError } from '@temporalio/client';
import type { Priority, SearchAttributePair } from '@temporalio/common';
import { TENANT } from '../common/search-attributes.js';

/** What a run of a tenant is started with besides its input. */
export interface TenantStartOptions {
  /** `ModelRetryTenant`: the run is found by its tenant (`model-retry list --query "ModelRetryTenant = 'acme'"`). */
  typedSearchAttributes?: SearchAttributePair[];
  /** The tenant as Temporal's fairness key, with the weight given. */
  priority?: Priority;
}

/**
 * The start options of a run for `tenant`: its search attribute and its task priority (the fairness key, and
 * `fairnessWeight` when given; otherwise Temporal's default weight, 1, or the task queue's own for the key). Empty
 * for a run without a tenant, which starts as before.
 */
export function tenantStartOptions(tenant: string | undefined, fairnessWeight?: number): TenantStartOptions {
  if (tenant === undefined) return {};
  return {
    typedSearchAttributes: [{ key: TENANT, value: tenant }],
    priority: { fairnessKey: tenant, ...(fairnessWeight !== undefined ? { fairnessWeight } : {}) },
  };
}

/**
 * Why `fairnessWeight` cannot be a fairness weight, or `undefined` when it can (or is absent). Temporal clamps a
 * weight to 0.001 .. 1000; anything else is refused so a typo does not become a silent clamp.
 */
export function fairnessWeightProblem(fairnessWeight: unknown): string | undefined {
  if (fairnessWeight === undefined) return undefined;
  if (typeof fairnessWeight !== 'number' || !Number.isFinite(fairnessWeight)) {
    return 'must be a number, e.g. `2` for twice the share of a tenant of weight 1';
  }
  if (fairnessWeight < 0.001 || fairnessWeight > 1000) {
    return `is ${fairnessWeight}; Temporal takes weights from 0.001 to 1000 (1 is the default)`;
  }
  return undefined;
}

/**
 * Starts a run with `tenantStartOptions`. A namespace where `ModelRetryTenant` is not registered refuses the
 * start (INVALID_ARGUMENT): the run is then started without the attribute, keeping its priority, as runs go on
 * without model-retry's other attributes there (the worker's start-up warning gives the command that registers
 * them).
 */
export async function startForTenant<T>(
  start: (extra: TenantStartOptions) => Promise<T>,
  tenant: string | undefined,
  fairnessWeight?: number,
): Promise<T> {
  const extra = tenantStartOptions(tenant, fairnessWeight);
  if (extra.typedSearchAttributes === undefined) return start(extra);
  try {
    return await start(extra);
  } catch (error) {
    if (!refusedTenantAttribute(error)) throw error;
    const { typedSearchAttributes: _refused, ...rest } = extra;
    return start(rest);
  }
}

/** Whether the server refused a start for its `ModelRetryTenant` (not registered on the namespace). */
function refusedTenantAttribute(error: unknown): boolean {
  if (!(error instanceof ServiceError)) return false;
  const cause = error.cause as { code?: number; message?: string } | undefined;
  const INVALID_ARGUMENT = 3;
  return cause?.code === INVALID_ARGUMENT && (cause.message ?? '').includes(TENANT.name);
}
