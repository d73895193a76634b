/**
 * model-retry/plugin: model-retry as a Temporal plugin for Workers and Clients.
 * @module model-retry/plugin
 */
export { ModelRetryPlugin, aiSdkPreloadPath } from './model-retry-plugin.js';
export type { ModelRetryPluginOptions } from './model-retry-plugin.js';
export { modelRetryWebpackConfigHook } from './bundle.js';
