// Scores fetched pages against their sub-questions (the one that found each page, and every other
// sub-question of the plan when the workflow hands them over) before any model reads them. The text stays
// in the artifact store; only the scores go back to the workflow. With an embedding model
// configured, a page also scores by meaning (its best passage against the question), so a page
// that answers in other words ("automobile" for "car") is not skipped as off-topic.
import { cosine, type Embedder } from '../providers/model/embeddings';
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
      (await scoreTexts({ question: questions.question, sources: [{ id: 'page', text_file_id: '', sub_question: questions.sub_question }], sub_questions: questions.sub_questions }, new Map([['page', text]]), { page: title })).scores.page,
  };

  async function scoreOf(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> {
    const texts = new Map<string, string>();
    for (const source of input.sources) texts.set(source.id, await artifacts.getText(source.text_file_id).catch(() => ''));
    return scoreTexts(input, texts);
  }

  async function scoreTexts(input: ScoreRelevanceInput, texts: Map<string, string>, titles: Record<string, string> = {}): Promise<ScoreRelevanceOutput> {
    const scores: Record<string, number> = {};
    for (const source of input.sources) scores[source.id] = relevanceScore(texts.get(source.id) ?? '', questionsOf(input, source.sub_question), titles[source.id]);
    const meaning = await meaningScores(embedder?.(), input, texts);
    for (const [id, score] of meaning) scores[id] = Math.max(scores[id] ?? 0, score);
    return { scores, ...(meaning.size ? { by_meaning: Object.fromEntries(meaning) } : {}) };
  }
}

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
