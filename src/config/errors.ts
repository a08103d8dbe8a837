/** A configuration that cannot work: the message names the key or variable to change. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
