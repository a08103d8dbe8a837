// Maps provider errors to Temporal failures: which are worth retrying, after how long, and what the
// user should do. Messages name environment variables, never their values.
import { ApplicationFailure } from '@temporalio/common';
import { APICallError, NoObjectGeneratedError } from 'ai';
import { ConfigError } from '../config/load';
import { HttpError, parseRetryAfter } from '../providers/http-error';
import { ContentPolicyError, InvalidModelOutputError, ModelStreamError, StructuredOutputRefused } from '../providers/model/errors';
import { withoutTrace } from '../providers/model/ladder';
import { STORE_FAILURE_TYPES, TO_FIX } from '../domain/names';
import { describeStoreError, isStoreUnavailable } from '../stores/unavailable';

// OpenAI context_length_exceeded, Anthropic "prompt is too long", Gemini "input token count ... exceeds".
const CONTEXT_TOO_LONG = /context_length_exceeded|prompt is too long|maximum context length|context window|input token count.*exceeds|exceeds the maximum number of tokens/i;
// OpenAI/Azure content_filter and content_policy_violation; Gemini safety blocks.
const CONTENT_POLICY = /content_filter|content_policy|content management policy|blocked due to safety|blockReason|PROHIBITED_CONTENT/i;
const OVERLOADED = /overloaded/i;
// Gemini answers a wrong key with 400 API_KEY_INVALID, OpenAI-compatible servers sometimes with 400 invalid_api_key.
const BAD_KEY = /API_KEY_INVALID|invalid_api_key|authentication_error/i;

/** A provider's message as one line of its own words: no stack trace it appended, no more than a few hundred characters. */
export function inOurWords(message: string): string {
  const line = withoutTrace(message).replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}
const MESSAGE_CHARS = 400;

interface ProviderError {
  status?: number;
  retryAfterMs?: number;
  /** The message and the provider's error body, to look for error types and codes. */
  detail: string;
}

/** What a timed-out call's message says to do about it. */
const timeoutHint = 'no full answer within models.timeout_seconds; a slow local model needs longer: models.timeout_seconds or models.role_timeout_seconds.<role>';

export function toFailure(err: unknown, what: string, credentialHint?: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ConfigError) return ApplicationFailure.nonRetryable(`${err.message} ${TO_FIX} change the worker's configuration as it says, then retry`, 'ConfigurationError');
  if (err instanceof InvalidModelOutputError || NoObjectGeneratedError.isInstance(err)) {
    return ApplicationFailure.retryable(`${what}: the model's answer did not match the expected JSON (${err.message})`, 'InvalidModelOutput');
  }
  if (err instanceof ContentPolicyError) return contentPolicy(what, err.message);
  if (err instanceof StructuredOutputRefused) return ApplicationFailure.nonRetryable(`${what}: ${err.message} ${TO_FIX} ${err.fix}`, 'StructuredOutputRefused');
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return ApplicationFailure.retryable(`${what}: timed out (${timeoutHint})`, 'Timeout');
  }
  const message = `${what}: ${inOurWords(err instanceof Error ? err.message : String(err))}`;
  const { status, retryAfterMs, detail } = describe(err);
  const nextRetryDelay = retryAfterMs !== undefined ? Math.max(retryAfterMs, 100) : undefined;

  if (status === 429 || /rate_limit/i.test(detail)) {
    return ApplicationFailure.create({ message: `${message} (rate limited${status ? `, status ${status}` : ''})`, type: 'RateLimited', nextRetryDelay });
  }
  if (status === 503 || status === 529 || OVERLOADED.test(detail)) {
    return ApplicationFailure.create({ message: `${message} (provider overloaded${status ? `, status ${status}` : ''})`, type: 'Overloaded', nextRetryDelay });
  }
  if (status === 401 || status === 403 || BAD_KEY.test(detail)) {
    const hint = credentialHint ? `check ${credentialHint}` : "check the provider's API key";
    return ApplicationFailure.nonRetryable(`${message} (${status ? `status ${status}: ` : ''}credentials rejected: ${hint}) ${TO_FIX} ${hint}`, 'AuthenticationError');
  }
  if (CONTEXT_TOO_LONG.test(detail)) {
    return ApplicationFailure.nonRetryable(
      `${message} (the prompt does not fit the model's context window) ${TO_FIX} lower max_source_chars_for_analysis, ` +
        `raise token_safety_margin or runtime_overhead, or set the model's window in model_context_overrides (or MODEL_CONTEXT_TOKENS)`,
      'ContextTooLong',
    );
  }
  if (CONTENT_POLICY.test(detail)) return contentPolicy(what, message);
  if (status !== undefined && status >= 400 && status < 500 && status !== 408) {
    return ApplicationFailure.nonRetryable(`${message} (status ${status}: the request was refused) ${TO_FIX} check the model's name and the server's settings, then retry`, 'InvalidRequestError');
  }
  return ApplicationFailure.retryable(message, 'TransientError');
}

function contentPolicy(what: string, message: string): ApplicationFailure {
  const subject = message.startsWith(what) ? message : `${what}: ${message}`;
  return ApplicationFailure.nonRetryable(`${subject} (blocked by the provider's content policy) ${TO_FIX} rephrase the question or use another model`, 'ContentPolicy');
}

/** The provider's message and error body, as the error carries them. */
export function errorDetail(err: unknown): string {
  return describe(err).detail;
}

function describe(err: unknown): ProviderError {
  if (APICallError.isInstance(err)) {
    return { status: err.statusCode, retryAfterMs: retryAfterOf(err.responseHeaders), detail: `${err.message}\n${err.responseBody ?? ''}` };
  }
  if (err instanceof HttpError) return { status: err.status, retryAfterMs: err.retryAfterMs, detail: err.message };
  if (err instanceof ModelStreamError) return { detail: `${err.errorType ?? ''}\n${err.message}` };
  return { detail: '' };
}

/** retry-after-ms (OpenAI, Azure) is more precise than Retry-After, so it wins when both are sent. */
function retryAfterOf(headers: Record<string, string> | undefined): number | undefined {
  const milliseconds = Number(headers?.['retry-after-ms']);
  if (headers?.['retry-after-ms'] && Number.isFinite(milliseconds)) return Math.max(0, milliseconds);
  return parseRetryAfter(headers?.['retry-after']);
}

/** A store error the store keeps refusing is reported after this many attempts (an unreachable store is waited for without limit). */
export const STORE_ERROR_ATTEMPTS = 10;

/**
 * A store's failure as Temporal should see it: `StoreUnavailable` (the database is away: retried
 * without a maximum at a capped backoff), or `StoreError` (it refused: retried a few times, then final).
 */
export function storeFailure(err: unknown, what: string, attempt = 1, store = 'sessions'): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const detail = describeStoreError(err);
  if (isStoreUnavailable(err)) {
    // The details say which store and why, for `status` ("waiting for the session store (attempt 3: …)").
    return ApplicationFailure.create({ message: `${what}: the store is unavailable (${detail})`, type: STORE_FAILURE_TYPES.unavailable, details: [{ store, error: detail }] });
  }
  const message = `${what} failed (${detail})`;
  return attempt >= STORE_ERROR_ATTEMPTS
    ? ApplicationFailure.nonRetryable(`${message}; gave up after ${attempt} attempts`, STORE_FAILURE_TYPES.error)
    : ApplicationFailure.retryable(message, STORE_FAILURE_TYPES.error);
}
