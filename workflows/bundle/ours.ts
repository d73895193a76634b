/**
 * Where the bundle's entry takes model-retry's own workflows from: this file stands in for the index your workflows
 * import (`model-retry/workflows` here, `model-retry/ai-sdk` when `serviceWorkflows` in plugin/ sees that one), so
 * that the entry and your workflows import the same module and webpack keeps model-retry's modules one module.
 */
export { modelRetryHealthWorkflow, modelRetryTenantLedgerWorkflow } from '../index.js';
