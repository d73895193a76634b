/**
 * model-retry/workflows: the workflow-safe entry. Everything here runs inside Temporal's deterministic sandbox.
 */
export { harnessWorkflow } from './harness.js';
export type { HarnessInput, HarnessResult } from './harness.js';
export * from './search-attributes.js';
