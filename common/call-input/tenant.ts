import { DEFAULT_TENANT } from '../tenants.js';
import { utf8Length } from '../inline-bytes.js';
import { InvalidModelCallInputError } from '../input-error.js';

/**
 * The longest tenant name, in UTF-8 bytes: the tenant is the Temporal task priority's fairness key, which
 * Temporal limits to 64 bytes.
 */
export const MAX_TENANT_BYTES = 64;

// C0 and C1 control characters (tabs and line breaks among them): a tenant is a name that shows in lists,
// queries and metrics, where they would break the line or hide what it says.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `tenant` is not a tenant name, or `undefined` when it is one (or absent). */
export function tenantProblem(tenant: unknown): string | undefined {
  if (tenant === undefined) return undefined;
  if (typeof tenant !== 'string') return 'must be a string naming the tenant, e.g. `"acme"`';
  if (tenant === '') return 'is empty: name the tenant, e.g. `"acme"`, or leave `tenant` out';
  if (tenant === DEFAULT_TENANT) {
    return (
      "`*` is the tenants file's entry for every tenant it does not name, not a tenant: name the tenant, " +
      'e.g. `"acme"`, or leave `tenant` out'
    );
  }
  if (CONTROL.test(tenant)) return 'has a control character (a tab, a line break): remove it';
  const bytes = utf8Length(tenant);
  if (bytes > MAX_TENANT_BYTES) {
    return (
      `is ${bytes} bytes of UTF-8, over ${MAX_TENANT_BYTES} (Temporal's limit on a fairness key): ` +
      'give a shorter name'
    );
  }
  return undefined;
}

/** Throws `InvalidModelCallInputError` naming `tenant` when it is not a tenant name. */
export function checkTenant(tenant: unknown): void {
  const problem = tenantProblem(tenant);
  if (problem !== undefined) throw new InvalidModelCallInputError('tenant', problem);
}
