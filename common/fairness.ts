import type { Priority } from '@temporalio/common';
import type { TenantsConfig } from './tenants.js';
import { DEFAULT_TENANT } from './tenants.js';

/**
 * A tenant's fairness weight as the worker's tenants file gives it: the tenant's own entry, else the default
 * entry (`*`), else none (Temporal then uses what the workflow was started with, or 1).
 */
export function tenantWeight(tenant: string, tenants: TenantsConfig | undefined): number | undefined {
  return tenants?.[tenant]?.weight ?? tenants?.[DEFAULT_TENANT]?.weight;
}

/**
 * The task priority of a tenant's activities (its model attempts and tools): the tenant as Temporal's fairness
 * key, with its weight from the tenants file. `undefined` for a call without a tenant, whose activities are
 * scheduled as before (with no priority, so recorded histories replay unchanged).
 */
export function tenantPriority(
  tenant: string | undefined,
  tenants: TenantsConfig | undefined,
): Priority | undefined {
  if (tenant === undefined) return undefined;
  const weight = tenantWeight(tenant, tenants);
  return { fairnessKey: tenant, ...(weight !== undefined ? { fairnessWeight: weight } : {}) };
}
