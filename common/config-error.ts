/** A setting that cannot be used; the message names the flag or variable and the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
