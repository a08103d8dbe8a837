// Which store errors mean "the store cannot be reached right now" (PostgreSQL stopped or restarting,
// the network between, S3 throttling or down, a SQLite file locked) as opposed to a refusal that
// will not change on retry (a constraint, a value too long). The first kind is waited out, without
// a maximum; the second is an error to report.

/** Socket-level codes of a peer that is away or a connection that broke. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'ENETDOWN', 'SQLITE_BUSY', 'SQLITE_LOCKED']);

/**
 * PostgreSQL SQLSTATEs: 08 connection exception, 53 insufficient resources, 57P01-03 admin or crash
 * shutdown and "cannot connect now" (starting up, in recovery), 40001/40P01 serialization failure
 * and deadlock (retry the transaction), 55P03 lock not available.
 */
const PG_UNAVAILABLE = /^(08\w{3}|53\w{3}|57P0[1-3]|40001|40P01|55P03)$/;

/** node-postgres and AWS SDK messages for the same situations, where no code is set. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|the database system is (starting up|shutting down|in recovery)|terminating connection|socket hang up|read ECONNRESET|connect ECONNREFUSED/i;

/** AWS SDK error names and HTTP statuses of a bucket that is busy or away. */
const S3_UNAVAILABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ServiceUnavailable', 'SlowDown', 'InternalError', 'ThrottlingException', 'NetworkingError']);

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The error and what it wraps (cause chains, AggregateError of a multi-address connect). */
function chain(err: unknown, depth = 0): ErrorLike[] {
  if (!err || typeof err !== 'object' || depth > 4) return [];
  const e = err as ErrorLike;
  const nested = [...(Array.isArray(e.errors) ? e.errors : []), ...(e.cause ? [e.cause] : [])];
  return [e, ...nested.flatMap((n) => chain(n, depth + 1))];
}

export function isStoreUnavailable(err: unknown): boolean {
  return chain(err).some((e) => {
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code)) return true;
    if (typeof e.name === 'string' && S3_UNAVAILABLE_NAMES.has(e.name)) return true;
    const status = e.$metadata?.httpStatusCode;
    if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
    return typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
  });
}

/** A short description for logs and status lines: the code first, then the message (one line, bounded). */
export function describeStoreError(err: unknown): string {
  const first = chain(err).find((e) => typeof e.code === 'string' || (typeof e.message === 'string' && e.message)) ?? {};
  const code = typeof first.code === 'string' ? first.code : '';
  const raw = typeof first.message === 'string' && first.message ? first.message : String(err);
  const message = raw.replace(/\s+/g, ' ').trim().slice(0, 200);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
