// How the client refuses: one sentence, and whether the input or the session's state was wrong.

export const MAX_QUERY_CHARS = 4_000;

export class ResearchError extends Error {
  override name = 'ResearchError';
  /** 'invalid': the input was refused (`field` names which part); otherwise the session's state does not allow it. */
  constructor(
    message: string,
    readonly refusal: { kind: 'invalid'; field?: string } | { kind: 'state' } = { kind: 'state' },
  ) {
    super(message);
  }
}

export function validateQuery(query: unknown): string {
  if (typeof query !== 'string' || !query.trim()) throw new ResearchError('the research question is empty');
  const trimmed = query.trim();
  if (trimmed.length > MAX_QUERY_CHARS) {
    throw new ResearchError(`the research question is ${trimmed.length} characters long; the limit is ${MAX_QUERY_CHARS}`);
  }
  return trimmed;
}
