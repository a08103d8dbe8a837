// Scores fetched pages against their sub-questions (the one that found each page, and every other
// sub-question of the plan when the workflow hands them over) before any model reads them. The text stays
// in the artifact store; only the scores go back to the workflow. With an embedding model
// configured, a page also scores by meaning (its best passage against the question), so a page
// that answers in other words ("automobile" for "car") is not skipped as off-topic.
import { cosine, type Embedder } from '../providers/model/embeddings';
import { normalizeQuery } from '../domain/text';
import { relevanceScore } from '../report/relevance';
import type { ArtifactStore } from '../stores/artifacts';
import { splitPassages } from '../verify/passages';
import type { ParseContentInput, ScoreRelevanceInput, ScoreRelevanceOutput } from './contracts';
import { withHeartbeat } from './heartbeat';

/** What a page just parsed is scored against: the question, the sub-question that found it, the plan's others. */
export type PageQuestions = NonNullable<ParseContentInput['relevance']>;

/** Passages of a page embedded for its meaning score: its opening ones, where its topic is stated. */
const PASSAGES_PER_PAGE = 6;
const PASSAGE_CHARS = 1_500;

export function createRelevanceActivities(artifacts: ArtifactStore, embedder?: () => Embedder | undefined) {
  return {
    scoreRelevance: (input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> => withHeartbeat(() => scoreOf(input)),
    /** One page's score from its text in hand (a fetch that just parsed it), without reading it back. */
    scorePageText: async (text: string, questions: PageQuestions, title = ''): Promise<number> =>
      (await scoreTexts({ question: questions.question, sources: [{ id: 'page', text_file_id: '', sub_question: questions.sub_question }], sub_questions: questions.sub_questions, found: questions.found }, new Map([['page', text]]), { page: title })).scores.page,
  };

  async function scoreOf(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> {
    const texts = new Map<string, string>();
    for (const source of input.sources) texts.set(source.id, await artifacts.getText(source.text_file_id).catch(() => ''));
    return scoreTexts(input, texts);
  }

  async function scoreTexts(input: ScoreRelevanceInput, texts: Map<string, string>, titles: Record<string, string> = {}): Promise<ScoreRelevanceOutput> {
    const scores: Record<string, number> = {};
    for (const source of input.sources) scores[source.id] = wordScore(input, source.sub_question, texts.get(source.id) ?? '', titles[source.id]);
    const meaning = await meaningScores(embedder?.(), input, texts);
    for (const [id, score] of meaning) scores[id] = Math.max(scores[id] ?? 0, score);
    return { scores, ...(meaning.size ? { by_meaning: Object.fromEntries(meaning) } : {}) };
  }
}

/**
 * The page's word score. A query the plan did not have — the refiner's or the critic's, written
 * from gaps and often as generic as "recent figures climate change" — vouches for a page only as
 * far as the page is about the question or its plan too: at most DERIVED_QUERY_REACH times its
 * best score against them (an essay on AI's energy use, 0.25 for that query and 0.06 for the
 * climate question's plan, is skipped). An enhanced version's focus is part of its plan.
 */
function wordScore(input: ScoreRelevanceInput, subQuestion: string, text: string, title?: string): number {
  const planned = new Set((input.sub_questions ?? []).map(normalizeQuery));
  const found = input.found;
  if (!planned.size || planned.has(normalizeQuery(subQuestion))) return relevanceScore(text, questionsOf(input, subQuestion), title, found);
  const vouched = relevanceScore(text, questionsOf(input, ''), title, found);
  return Math.max(vouched, Math.min(relevanceScore(text, [subQuestion], title, found), Math.round(DERIVED_QUERY_REACH * vouched * 1000) / 1000));
}

/** How far above its score for the question and the plan a query outside the plan can lift a page. */
const DERIVED_QUERY_REACH = 2;

/** What a page is scored against: the sub-question that found it, the plan's others, the whole question. */
function questionsOf(input: ScoreRelevanceInput, subQuestion: string): string[] {
  return [...new Set([subQuestion, ...(input.sub_questions ?? []), input.question].filter((q) => q.trim()))];
}

/** Cosine of each page's best opening passage with its sub-question or the question; none when the embedder fails. */
async function meaningScores(embedder: Embedder | undefined, input: ScoreRelevanceInput, texts: Map<string, string>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!embedder) return out;
  const questions = [...new Set(input.sources.flatMap((s) => questionsOf(input, s.sub_question)))];
  const passages = input.sources.map((s) =>
    splitPassages(texts.get(s.id) ?? '')
      .slice(0, PASSAGES_PER_PAGE)
      .map((p) => p.text.slice(0, PASSAGE_CHARS))
      .filter((p) => p.trim()),
  );
  try {
    const vectors = await embedder.embed([...questions, ...passages.flat()]);
    const questionVector = new Map(questions.map((q, i) => [q, vectors[i]]));
    let next = questions.length;
    input.sources.forEach((source, i) => {
      const own = passages[i].map(() => vectors[next++]);
      const wanted = questionsOf(input, source.sub_question).map((q) => questionVector.get(q) as number[]);
      const best = Math.max(0, ...own.flatMap((p) => wanted.map((q) => cosine(p, q))));
      if (own.length) out.set(source.id, Math.round(best * 1000) / 1000);
    });
  } catch {
    // The embedding server down: the lexical score alone decides, as without one.
    out.clear();
  }
  return out;
}
