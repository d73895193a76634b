/**
 * A call of a tenant under an envelope is checked at start against what its worker said (`modelRetryConfig`):
 * every backend of its chain needs an output bound to reserve (the call's `settings.maxOutputTokens`, else the
 * model's `maxOutputTokens` in the providers file), and a cost envelope needs every backend's `pricing`. Without
 * them an attempt could not reserve, and would be refused at its turn: the call is refused before any attempt
 * instead, naming the field.
 */
import { limitsSpend } from '../../policy/index.js';
import type { TenantEnvelope } from '../../policy/index.js';
import { DEFAULT_TENANT } from '../tenants.js';
import type { WorkerConfig } from '../worker-config.js';

/** The envelope that holds for `tenant` in a tenants file: its own entry, else `*`'s. */
export function envelopeFor(
  tenants: WorkerConfig['tenants'],
  tenant: string | undefined,
): TenantEnvelope | undefined {
  if (tenants === undefined || tenant === undefined) return undefined;
  return Object.hasOwn(tenants, tenant) ? tenants[tenant] : tenants[DEFAULT_TENANT];
}

/** What keeps a tenant's call from reserving against its envelope, naming the field; `undefined` when nothing. */
export function tenantBoundProblem(
  tenant: string | undefined,
  backends: readonly string[],
  call: { maxOutputTokens?: number | undefined; embed: boolean },
  config: Pick<WorkerConfig, 'tenants' | 'outputLimits' | 'pricing'> | undefined,
): { field: string; message: string } | undefined {
  const envelope = envelopeFor(config?.tenants, tenant);
  if (!limitsSpend(envelope)) return undefined;
  const limit = envelope?.maxTotalTokens !== undefined ? 'tokens' : 'USD';
  if (!call.embed && call.maxOutputTokens === undefined) {
    const unbound = backends.filter((b) => config?.outputLimits?.[b] === undefined);
    if (unbound.length > 0) {
      return {
        field: 'settings.maxOutputTokens',
        message:
          `tenant ${tenant}'s envelope counts ${limit}: each attempt reserves its output bound, and ` +
          `${unbound.join(', ')} has none: set \`settings.maxOutputTokens\` on the call, or the model's ` +
          '`maxOutputTokens` in the providers file',
      };
    }
  }
  if (envelope?.maxCostUsd !== undefined) {
    const unpriced = backends.filter((b) => config?.pricing?.[b] === undefined);
    if (unpriced.length > 0) {
      return {
        field: 'model',
        message:
          `tenant ${tenant}'s envelope counts USD (\`maxCostUsd\`), and ${unpriced.join(', ')} has no ` +
          '`pricing` in the providers file: add its pricing, or call a priced model',
      };
    }
  }
  return undefined;
}
