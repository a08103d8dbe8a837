// Relevance before reading: each fetched page is scored against its sub-question, and pages below
// the threshold are listed as skipped instead of being sent to the analyzer (they cost no tokens).
import { patched } from '@temporalio/workflow';
import { bookkeeping } from '../activities';
import type { ResearchSession } from '../session';
import type { Source } from '../../domain/types';

export const DEFAULT_MIN_RELEVANCE = 0.2;

/**
 * Whether this session scores relevance. Sessions recorded before the gate read every page; their
 * callers must not even await here, since one more await reorders parallel branches' commands.
 */
export function relevanceGateOn(): boolean {
  return patched('relevance-gate');
}

/** The sources worth reading; the rest are marked skipped with their score. */
export async function skipOffTopic(s: ResearchSession, fetched: Source[]): Promise<Source[]> {
  const threshold = s.settings.min_relevance ?? DEFAULT_MIN_RELEVANCE;
  const unscored = fetched.filter((src) => src.relevance === undefined && src.text_file_id);
  if (unscored.length) {
    const out = await s.tool(
      'score_relevance',
      { sources: unscored.map((src) => src.id) },
      () =>
        bookkeeping(s.state.local_bookkeeping).scoreRelevance({
          question: s.state.initial_query,
          sources: unscored.map((src) => ({ id: src.id, text_file_id: src.text_file_id as string, sub_question: src.query })),
        }),
      (r) => ({ scores: r.scores }),
    );
    for (const src of unscored) src.relevance = out.scores[src.id] ?? 0;
  }
  const readable: Source[] = [];
  for (const src of fetched) {
    if ((src.relevance ?? 1) >= threshold) {
      readable.push(src);
      continue;
    }
    if (!src.skipped_off_topic) {
      src.skipped_off_topic = true;
      src.analyzed = true;
      src.notes = `skipped unread: relevance ${src.relevance?.toFixed(2)} to "${src.query}" is below ${threshold}`;
      s.info(`source ${src.id} skipped as off-topic (relevance ${src.relevance?.toFixed(2)} < ${threshold}): ${src.url}`);
    }
  }
  return readable;
}
