/**
 * The workflows module of a bundle `ModelRetryPlugin` builds: your workflows (this file's import of
 * `./your-workflows.js` is your `workflowsPath`), and the workflows model-retry starts on your task queue by
 * itself, which your worker must run even though your code never names them: a backend's fleet health and a
 * tenant's ledger. Named exports win over `export *`, so a workflows file that exports them too changes nothing.
 */
import * as yours from './your-workflows.js';

export * from './your-workflows.js';
export { modelRetryHealthWorkflow, modelRetryTenantLedgerWorkflow } from './ours.js';

// `export *` leaves out a default export, which Temporal runs for any workflow type it finds no function for (a
// dynamic workflow). Read by name, so that a workflows file without one bundles without a warning.
const exported: Record<string, unknown> = yours;
export default exported['default'];
