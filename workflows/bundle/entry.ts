/**
 * The workflows module of a bundle `ModelRetryPlugin` builds: your workflows (this file's import of
 * `./your-workflows.js` is your `workflowsPath`), and the workflows model-retry starts on your task queue by
 * itself, which your worker must run even though your code never names them: a backend's fleet health and a
 * tenant's ledger. Named exports win over `export *`, so a workflows file that exports them too changes nothing.
 */
export * from './your-workflows.js';
// From the index, as your workflows import model-retry: webpack then keeps our modules one concatenated module.
export { modelRetryHealthWorkflow, modelRetryTenantLedgerWorkflow } from '../index.js';
