/** A model call input that cannot be run; the message names the field and the fix. */
export class InvalidModelCallInputError extends Error {
  override name = 'InvalidModelCallInput';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`\`${field}\`: ${message}`);
  }
}
