// Model failures that are not HTTP statuses; src/activities/errors.ts maps them to retry decisions.

/** The model's answer could not be turned into the expected object, even after one repair attempt. */
export class InvalidModelOutputError extends Error {
  override name = 'InvalidModelOutputError';

  constructor(
    message: string,
    /** The last answer as the model gave it, for logs. */
    readonly output: string,
  ) {
    super(message);
  }
}

/** The provider withheld or cut the answer for its content policy (finish reason content-filter). */
export class ContentPolicyError extends Error {
  override name = 'ContentPolicyError';
}

/** A stream error the provider sent as data ({type, message}) rather than as an HTTP status. */
export class ModelStreamError extends Error {
  override name = 'ModelStreamError';

  constructor(
    message: string,
    /** The provider's error type or code, e.g. "overloaded_error" or "context_length_exceeded". */
    readonly errorType: string | undefined,
  ) {
    super(message);
  }
}

/** The server refuses the way of asking for JSON it was pinned to, or every way there is. */
export class StructuredOutputRefused extends Error {
  override name = 'StructuredOutputRefused';

  constructor(
    message: string,
    /** What to do about it. */
    readonly fix: string,
  ) {
    super(message);
  }
}
