// How the client refuses: one sentence, and whether the input or the session's state was wrong;
// and Temporal's failures said that way.
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { REFUSAL_TYPES } from '../contract/names';
import { MAX_QUERY_CHARS } from '../domain/messages';

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

declare const checked: unique symbol;
/** A research question as validateQuery returns it: trimmed, not empty, within the limit. */
export type Question = string & { readonly [checked]: true };

export function validateQuery(query: unknown): Question {
  if (typeof query !== 'string' || !query.trim()) throw new ResearchError('the research question is empty');
  const trimmed = query.trim();
  if (trimmed.length > MAX_QUERY_CHARS) {
    throw new ResearchError(`the research question is ${trimmed.length} characters long; the limit is ${MAX_QUERY_CHARS}`);
  }
  return trimmed as Question;
}

export function isGone(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (err as { name?: string })?.name === 'WorkflowNotFoundError';
}

/** How often one update is sent before its failure is the answer. */
export const UPDATE_ATTEMPTS = 5;

/**
 * The engine dropped the update unapplied: the workflow task it arrived in failed, as one that
 * continues as new does when an update lands beside it. Sending it again is safe.
 */
export function isDroppedUpdate(err: unknown): boolean {
  const cause = (err as { cause?: { code?: number; message?: string } })?.cause;
  return cause?.code === 9 && /update due to unexpected workflow task failure/i.test(cause.message ?? '');
}

/** A failure of a call on session `id` as the client says it: unknown id, a refusal (typed), or as it came. */
export function explainFailure(id: string, err: unknown): Error {
  if (isGone(err)) return new ResearchError(`unknown research id ${id}`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause as Error | undefined;
    if (cause instanceof ApplicationFailure && cause.type === REFUSAL_TYPES.invalid) {
      const field = (cause.details?.[0] as { field?: unknown } | undefined)?.field;
      return new ResearchError(cause.message, { kind: 'invalid', ...(typeof field === 'string' ? { field } : {}) });
    }
    return new ResearchError(cause?.message ?? err.message);
  }
  const message = (err as Error)?.message ?? String(err);
  if (/workflow execution already completed/i.test(message)) return new ResearchError(`research ${id} has already finished`);
  return err instanceof Error ? err : new Error(message);
}
