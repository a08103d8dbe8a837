// One error type for the service: a status code, a machine code, a sentence, and the field or the
// current status where that helps the caller fix the request.
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: 'INVALID_REQUEST' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'WRONG_STATE' | 'CONFLICT' | 'UNSUPPORTED' | 'TOO_MANY_STREAMS',
    message: string,
    readonly details: { field?: string; status?: string } = {},
  ) {
    super(message);
  }
}

export const invalid = (field: string, message: string) => new ApiError(400, 'INVALID_REQUEST', message, { field });
export const notFound = (id: string) => new ApiError(404, 'NOT_FOUND', `unknown research id ${id}`);
export const wrongState = (id: string, status: string, message?: string) =>
  new ApiError(409, 'WRONG_STATE', message ?? `research ${id} is ${status}`, { status });
