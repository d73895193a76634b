/** A failure a tool reports on purpose: told to the model as an error result, or stopping the turn when `fatal`. */
export class ToolError extends Error {
  override name = 'ToolError';
  readonly fatal: boolean;
  constructor(message: string, options: { fatal?: boolean } = {}) {
    super(message);
    this.fatal = options.fatal === true;
  }
}

/** A tools map that cannot be used; the message names the tool and the field. */
export class InvalidToolError extends Error {
  override name = 'InvalidToolError';
}
