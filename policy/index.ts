/**
 * model-retry's pure retry policy: failure classes, actions, the retry plan and its validation, waits,
 * the deadline rule and `decide`. No Temporal, no clock, no randomness of its own, no I/O: workflows call
 * it deterministically and activities read the class names from it.
 */
export * from './classes.js';
export * from './observation.js';
export * from './classify.js';
export * from './retry-after.js';
export * from './failure.js';
export * from './plan.js';
export * from './invalid-plan.js';
export * from './validate-plan.js';
export * from './waits.js';
export * from './deadline.js';
export * from './state.js';
export * from './decision.js';
export * from './decide.js';
export * from './repair.js';
export { parseHttpDate, parseIsoInstant } from './time.js';
export * from './history-limit.js';
export * from './stop-order.js';
export * from './timeout-class.js';
export * from './record-failure.js';
export * from './stop-rules.js';
export * from './shared-not-before.js';
export * from './budget.js';
export * from './budget-fields.js';
export * from './breaker.js';
export * from './cooling.js';
export * from './rate-limit-reset.js';
