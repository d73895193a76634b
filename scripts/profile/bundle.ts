import type { BundleOptions } from '@temporalio/worker';

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * A `webpackConfigHook` for a workflow bundle: lets webpack concatenate the ES modules it can (model-retry's own
 * workflow code and `@opentelemetry/api`) into the module that imports them. Temporal instantiates every module
 * of the bundle afresh for each workflow run (module state is per run), so each module costs a factory call and
 * its export getters at every run's start and at every replay; concatenated, our ~70 files cost one. Exports are
 * all kept (`usedExports: false`): Temporal looks workflows up by name at run time. Chains after `next`.
 */
export function concatenateModules(next?: WebpackConfigHook): WebpackConfigHook {
  return (config) => {
    const given = next ? next(config) : config;
    return {
      ...given,
      optimization: {
        ...given.optimization,
        concatenateModules: true,
        providedExports: true,
        usedExports: false,
      },
    };
  };
}
