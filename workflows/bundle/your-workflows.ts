/**
 * A stand-in for your workflows module: the workflow bundle that `ModelRetryPlugin` builds imports your
 * `workflowsPath` where `entry` imports this file (see `serviceWorkflows` in plugin/).
 */
export {};
