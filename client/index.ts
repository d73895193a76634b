/**
 * model-retry/client: what a host uses to start and await durable model calls and to read what happened.
 */
export { startModelCall, checkModelCall } from './model-call-client.js';
export type { StartModelCallOptions } from './model-call-client.js';
export { readCallHistory } from './history-reader.js';
export type { CallHistory } from './history-reader.js';
export { callReport } from './call-report.js';
export type { CallReport } from './call-report.js';
export { formatTimeline } from './timeline.js';
