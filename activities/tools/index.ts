/** Tools for agent turns: the registry, the built-ins and the tool activities. */
export { ToolRegistry, TOOL_DEFAULTS } from './registry.js';
export type { ToolContext, ToolSpec } from './registry.js';
export { ToolError, InvalidToolError } from './errors.js';
export { BUILTIN_TOOLS } from './builtins.js';
export { evaluate, CalculatorError } from './calculator.js';
export { createToolActivities, MAX_TOOL_OUTPUT_CHARS } from './tool-activity.js';
export type * from '../../common/tools.js';
export { ToolFailureType } from '../../common/tools.js';
