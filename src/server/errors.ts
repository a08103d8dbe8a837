// One error type for the service: a status code, a machine code, a sentence, and the field or the
// current status where that helps the caller fix the request.
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: 'INVALID_REQUEST' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'GONE' | 'WRONG_STATE' | 'CONFLICT' | 'UNSUPPORTED' | 'TOO_MANY_STREAMS' | 'UNAVAILABLE',
    message: string,
    readonly details: { field?: string; status?: string } = {},
    /** Headers the answer carries (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalid = (field: string, message: string) => new ApiError(400, 'INVALID_REQUEST', message, { field });
export const notFound = (id: string) => new ApiError(404, 'NOT_FOUND', `unknown research id ${id}`);
/**
 * While the session store is away, for every id the caller was not shown lately — another user's,
 * none at all, or one of the caller's own — one answer: 404, the same words, Retry-After.
 */
export const notFoundWhileStoreAway = (id: string) =>
  new ApiError(404, 'NOT_FOUND', `unknown research id ${id} (the session store cannot be reached right now, so sessions not read lately cannot be looked up; try again shortly)`, {}, { 'retry-after': '5' });
export const wrongState = (id: string, status: string, message?: string) =>
  new ApiError(409, 'WRONG_STATE', message ?? `research ${id} is ${status}`, { status });

/**
 * A failure of Temporal itself (not the database): the client's ServiceError ("Failed to query
 * Workflow"), or a gRPC status of a server that is away or slow (14 UNAVAILABLE, 4 DEADLINE_EXCEEDED)
 * anywhere in its causes — though its text may also say "connect ECONNREFUSED", as a database's would.
 */
export function isEngineFailure(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  if (e.name === 'ServiceError' || e.code === 14 || e.code === 4) return true;
  if (typeof e.message === 'string' && /^(14 UNAVAILABLE|4 DEADLINE_EXCEEDED):/.test(e.message)) return true;
  return isEngineFailure(e.cause, depth + 1);
}
