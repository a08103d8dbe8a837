// Relevance before reading: how well a page's parsed text answers its sub-question, from 0 to 1.
// The page is split into passages and ranked by BM25 against the question; the score is the
// IDF-weighted share of the question's words the best passage contains (the same measure the
// claim check uses), taken against the sub-question and the whole question, whichever is higher.
import { rankPassages, splitPassages, terms } from '../verify/passages';

/** Characters of a page considered: enough for any article's substance, bounded for huge PDFs. */
const MAX_SCORED_CHARS = 200_000;

export function relevanceScore(text: string, questions: string[]): number {
  const passages = splitPassages(text.slice(0, MAX_SCORED_CHARS));
  if (!passages.length) return 0;
  let best = 0;
  for (const question of questions) {
    if (!terms(question).length) continue;
    const top = rankPassages(question, passages, 1)[0];
    best = Math.max(best, top?.coverage ?? 0);
  }
  return Math.round(best * 1000) / 1000;
}
