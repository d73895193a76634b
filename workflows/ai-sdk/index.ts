/**
 * model-retry/ai-sdk (workflow-safe): the AI SDK in workflow code, each model request a durable model call.
 * Bundle with `ModelRetryPlugin` (or import `model-retry/ai-sdk/preload` first) so that the AI SDK finds the Web
 * APIs it needs in the sandbox.
 * @module model-retry/ai-sdk
 */
export { durableModel, DurableLanguageModel } from './durable-model.js';
export { DEFAULT_DURABLE_MODEL_PLAN } from './model-requests.js';
export type { DurableModelOptions } from './durable-model.js';
export {
  durableEmbeddingModel,
  DurableEmbeddingModel,
  DEFAULT_MAX_EMBEDDINGS_PER_CALL,
} from './durable-embedding-model.js';
export type { DurableEmbeddingModelOptions } from './durable-embedding-model.js';
export { convertRequest } from './prompt.js';
export type { ConvertedRequest } from './prompt.js';
export type { ModelRetryMetadata } from './result.js';
export { installAiSdkPolyfills, AI_SDK_POLYFILLS } from './polyfills.js';
export { closeStream, workflowStream } from '../stream.js';
// The workflows model-retry starts on your task queue by itself (fleet health, a tenant's ledger): a bundle that
// `ModelRetryPlugin` builds exports them from here when your workflows use the AI SDK, so that model-retry's
// modules stay one concatenated module.
export { modelRetryHealthWorkflow } from '../health/health-workflow.js';
export { modelRetryTenantLedgerWorkflow } from '../tenant/ledger-workflow.js';
