/** An HTTP answer a provider gave, with what is needed to decide on retries. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly retryAfterMs: number | undefined;

  constructor(readonly status: number, message: string, headers?: Headers | Record<string, string>) {
    super(message);
    const value = headers instanceof Headers ? headers.get('retry-after') : headers?.['retry-after'];
    this.retryAfterMs = parseRetryAfter(value ?? undefined);
  }
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
