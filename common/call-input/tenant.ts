import { DEFAULT_TENANT } from '../tenants.js';
import { MAX_TENANT_NAME_BYTES, tenantNameProblem } from '../../policy/tenant-fields.js';
import { InvalidModelCallInputError } from '../input-error.js';

/**
 * The longest tenant name, in UTF-8 bytes: the tenant is the Temporal task priority's fairness key, which
 * Temporal limits to 64 bytes.
 */
export const MAX_TENANT_BYTES = MAX_TENANT_NAME_BYTES;

/** Why `tenant` is not a tenant name, or `undefined` when it is one (or absent). */
export function tenantProblem(tenant: unknown): string | undefined {
  if (tenant === undefined) return undefined;
  if (tenant === DEFAULT_TENANT) {
    return (
      "`*` is the tenants file's entry for every tenant it does not name, not a tenant: name the tenant, " +
      'e.g. `"acme"`, or leave `tenant` out'
    );
  }
  // The same rule as the tenants file's names: one rule, whichever side names the tenant.
  return tenantNameProblem(tenant, 'tenant')?.message;
}

/** Throws `InvalidModelCallInputError` naming `tenant` when it is not a tenant name. */
export function checkTenant(tenant: unknown): void {
  const problem = tenantProblem(tenant);
  if (problem !== undefined) throw new InvalidModelCallInputError('tenant', problem);
}
