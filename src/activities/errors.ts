// Maps provider errors to Temporal failures: which are worth retrying, after how long, and what the
// user should do. Messages name environment variables, never their values.
import { ApplicationFailure } from '@temporalio/common';
import { APICallError, NoObjectGeneratedError } from 'ai';
import { ConfigError } from '../config/load';
import { HttpError, parseRetryAfter } from '../providers/http-error';

export function toFailure(err: unknown, what: string, credentialHint?: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ConfigError) return ApplicationFailure.nonRetryable(err.message, 'ConfigurationError');
  let status: number | undefined;
  let retryAfterMs: number | undefined;
  let message = err instanceof Error ? err.message : String(err);
  if (APICallError.isInstance(err)) {
    status = err.statusCode;
    retryAfterMs = parseRetryAfter(err.responseHeaders?.['retry-after']);
  } else if (err instanceof HttpError) {
    status = err.status;
    retryAfterMs = err.retryAfterMs;
  } else if (NoObjectGeneratedError.isInstance(err)) {
    return ApplicationFailure.retryable(`${what}: the model's answer did not match the expected JSON (${message})`, 'InvalidModelOutput');
  } else if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return ApplicationFailure.retryable(`${what}: timed out`, 'Timeout');
  }
  message = `${what}: ${message}`;
  if (status === 429 || status === 503) {
    return ApplicationFailure.create({
      message: `${message} (rate limited, status ${status})`,
      type: 'RateLimited',
      nextRetryDelay: retryAfterMs !== undefined ? Math.max(retryAfterMs, 100) : undefined,
    });
  }
  if (status === 401 || status === 403) {
    const hint = credentialHint ? `: check ${credentialHint}` : '';
    return ApplicationFailure.nonRetryable(`${message} (status ${status}: credentials rejected${hint})`, 'AuthenticationError');
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 408) {
    return ApplicationFailure.nonRetryable(`${message} (status ${status}: the request was refused)`, 'InvalidRequestError');
  }
  return ApplicationFailure.retryable(message, 'TransientError');
}
