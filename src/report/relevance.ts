// Relevance before reading: how much of its question a page's parsed text speaks to, from 0 to 1 —
// the share of the question's content words (stemmed; Chinese, Japanese and Korean as character
// pairs) that occur in the page, against the sub-question and the whole question, whichever is
// higher. Unweighted on purpose: IDF taken from one page or one small batch discounts exactly the
// words a page on the topic repeats everywhere (a solar article scored below a heat-pump one).
import { terms } from './words';

/** Characters of a page considered: enough for any article's substance, bounded for huge PDFs. */
const MAX_SCORED_CHARS = 200_000;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** Content words, with runs of CJK characters as overlapping character pairs. */
export function relevanceTerms(text: string): string[] {
  const out = terms(text.replace(CJK_RUN, ' '));
  for (const m of text.matchAll(CJK_RUN)) {
    const run = m[0];
    if (run.length === 1) out.push(run);
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
  }
  return out;
}

/** 1 when no question has a word to look for: nothing is skipped on a guess. */
export function relevanceScore(text: string, questions: string[]): number {
  const page = new Set(relevanceTerms(text.slice(0, MAX_SCORED_CHARS)));
  let best: number | undefined;
  for (const question of questions) {
    const wanted = [...new Set(relevanceTerms(question))];
    if (!wanted.length) continue;
    const share = wanted.filter((t) => page.has(t)).length / wanted.length;
    best = Math.max(best ?? 0, share);
  }
  return best === undefined ? 1 : Math.round(best * 1000) / 1000;
}
