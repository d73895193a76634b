/**
 * Whether this worker can make an attempt's request at all, before anything is sent: the model resolves in the
 * provider registry (else `Misconfigured`, naming what is missing), and a call with a cost budget has a price.
 */
import { ProvidersConfigError } from '../providers/config.js';
import { MisconfiguredError, parseModelName } from '../providers/registry.js';
import type { ProviderRegistry, ResolvedModel } from '../providers/registry.js';
import type { ObservedError } from './classify-error.js';

/** The model, or the observation of why the worker cannot make the request. */
export function resolveModel(
  providers: () => ProviderRegistry,
  model: string,
): ResolvedModel | ObservedError {
  try {
    return providers().resolve(model);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof MisconfiguredError || error instanceof ProvidersConfigError) {
      return { observation: { misconfigured: true }, message };
    }
    return { observation: {}, message };
  }
}

/**
 * A call with a cost budget on a model without a price: nothing is sent (the cost could not be counted), and
 * the backend is dropped as `Misconfigured`, naming `pricing`.
 */
export function noPricing(model: string): ObservedError {
  const { provider, modelId } = parseModelName(model);
  return {
    observation: { misconfigured: true },
    message:
      `the call has a cost budget (budget.maxCostUsd) but model "${model}" has no \`pricing\` in the providers ` +
      `file: add "models": { "${modelId}": { "pricing": { "inputPerMTok": ..., "outputPerMTok": ... } } } to ` +
      `provider "${provider}", or use a token budget`,
  };
}
