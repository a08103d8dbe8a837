// Judges fetched pages before any model reads them. The text stays in the artifact store; only
// scores and verdicts go back to the workflow. Every page gets its word score against its
// sub-question, the plan's others, the question and its renderings in the sources' languages:
// the score orders reading, and a page at or above `judge_below` is read (the analyzer's verdict is
// the last word). A page below it is judged: with an embedding model (the config's, or one the
// session's providers offer) by meaning, each passage against the question in every language it is
// asked in, where the embedding is clear either way; without one (or with a server that fails, or
// does not answer within search.embedding_wait_seconds: embeddings are an aid, never a dependency),
// a page that shares no word with the question in any language asked is not about it. The others
// are left to the model's triage.
import type { RelevanceJudgement } from '../domain/types';
import { normalizeQuery } from '../domain/text';
import type { Embedder } from '../providers/model/embeddings';
import { relevanceScore, sharesWords } from '../report/relevance';
import { DECOY_QUESTIONS, meaningVerdict } from '../report/relevance-meaning';
import type { ArtifactStore } from '../stores/artifacts';
import { splitPassages } from '../report/passages';
import type { PageQuestions, ScoreRelevanceInput, ScoreRelevanceOutput } from './contracts';
import { withHeartbeat } from './heartbeat';

export type { PageQuestions };

/** Passages of a page embedded: its opening ones, where its topic is stated (MiniLM reads 256 word pieces of each). */
const PASSAGES_PER_PAGE = 8;
const PASSAGE_CHARS = 1_000;

/** The embedding model for a session's models, if any offers one. */
export type ChooseEmbedder = (models: string[]) => Embedder | undefined | Promise<Embedder | undefined>;

interface Page {
  id: string;
  text: string;
  title: string;
  sub_question: string;
}

export interface PageJudgement {
  relevance: number;
  judged?: RelevanceJudgement;
}

/** How long a page waits for its verdict by meaning before it is left to the triage (search.embedding_wait_seconds). */
export const DEFAULT_EMBEDDING_WAIT_MS = 4_000;

export function createRelevanceActivities(artifacts: ArtifactStore, chooseEmbedder?: ChooseEmbedder, opts: { waitMs?: number } = {}) {
  const meaning = new MeaningJudge(opts.waitMs ?? DEFAULT_EMBEDDING_WAIT_MS);
  return {
    scoreRelevance: (input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> => withHeartbeat(() => scoreOf(input)),
    /** One page's score and verdict from its text in hand (a fetch that just parsed it), without reading it back. */
    judgePageText: async (text: string, questions: PageQuestions, title = ''): Promise<PageJudgement> => {
      const out = await judgeAll(questions, [{ id: 'page', text, title, sub_question: questions.sub_question }]);
      return { relevance: out.scores.page, ...(out.judged?.page ? { judged: out.judged.page } : {}) };
    },
    /** One page's word score alone. */
    scorePageText: async (text: string, questions: PageQuestions, title = ''): Promise<number> => (await judgeAll({ ...questions, judge_below: 0 }, [{ id: 'page', text, title, sub_question: questions.sub_question }])).scores.page,
  };

  async function scoreOf(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> {
    const pages: Page[] = [];
    for (const source of input.sources) pages.push({ id: source.id, text: await artifacts.getText(source.text_file_id).catch(() => ''), title: source.title ?? '', sub_question: source.sub_question });
    return judgeAll(input, pages);
  }

  async function judgeAll(input: Omit<PageQuestions, 'sub_question'>, pages: Page[]): Promise<ScoreRelevanceOutput> {
    const scores: Record<string, number> = {};
    const judged: Record<string, RelevanceJudgement> = {};
    const doubtful: Page[] = [];
    for (const page of pages) {
      scores[page.id] = wordScore(input, page);
      if (scores[page.id] < (input.judge_below ?? 0)) doubtful.push(page);
    }
    const embedder = doubtful.length && chooseEmbedder ? await chooseEmbedder(input.models ?? []) : undefined;
    const byModel = embedder ? await byMeaning(meaning, embedder, askedIn(input), doubtful) : new Map<string, RelevanceJudgement | undefined>();
    for (const page of doubtful) {
      const verdict = byModel.get(page.id);
      if (verdict) judged[page.id] = verdict;
      // Not weighed by meaning: a page that shares no word with the question in any language asked is not about it.
      else if (!byModel.has(page.id) && !sharesWords(page.text, [...askedIn(input), page.sub_question], page.title)) judged[page.id] = { by: 'words', verdict: 'no' };
    }
    return { scores, ...(Object.keys(judged).length ? { judged } : {}) };
  }
}

/** The question in every language it is asked in: as asked, and as its sources say it; an enhanced version's focus beside it. */
function askedIn(input: Pick<PageQuestions, 'question' | 'translations' | 'focus'>): string[] {
  return [...new Set([input.question, ...(input.translations ?? []), ...(input.focus ? [input.focus] : [])].filter((q) => q.trim()))];
}

/**
 * The page's word score. A query the plan did not have — the refiner's or the critic's, written
 * from gaps and often as generic as "recent figures climate change" — vouches for a page only as
 * far as the page is about the question or its plan too: at most DERIVED_QUERY_REACH times its
 * best score against them (an essay on AI's energy use, 0.25 for that query and 0.06 for the
 * climate question's plan, is skipped). An enhanced version's focus is part of its plan.
 */
function wordScore(input: Omit<PageQuestions, 'sub_question'>, page: Page): number {
  const planned = new Set((input.sub_questions ?? []).map(normalizeQuery));
  const { found } = input;
  if (!planned.size || planned.has(normalizeQuery(page.sub_question))) return relevanceScore(page.text, questionsOf(input, page.sub_question), page.title, found);
  const vouched = relevanceScore(page.text, questionsOf(input, ''), page.title, found);
  return Math.max(vouched, Math.min(relevanceScore(page.text, [page.sub_question], page.title, found), Math.round(DERIVED_QUERY_REACH * vouched * 1000) / 1000));
}

/** How far above its score for the question and the plan a query outside the plan can lift a page. */
const DERIVED_QUERY_REACH = 2;

/** What a page is scored against: the sub-question that found it, the plan's others, the whole question in every language asked. */
function questionsOf(input: Omit<PageQuestions, 'sub_question'>, subQuestion: string): string[] {
  return [...new Set([subQuestion, ...(input.sub_questions ?? []), ...askedIn(input)].filter((q) => q.trim()))];
}

/**
 * Each page's verdict by meaning, from one request for its passages (the questions' vectors come
 * from the worker's cache): undefined where it is unsure (the triage decides); no page at all when
 * the request fails or does not answer within the wait (left to words and the triage).
 */
async function byMeaning(meaning: MeaningJudge, embedder: Embedder, questions: string[], pages: Page[]): Promise<Map<string, RelevanceJudgement | undefined>> {
  const passages = pages.map((page) => [
    ...(page.title.trim() ? [page.title.trim()] : []),
    ...splitPassages(page.text)
      .slice(0, PASSAGES_PER_PAGE)
      .map((p) => p.text.slice(0, PASSAGE_CHARS))
      .filter((p) => p.trim()),
  ]);
  const out = new Map<string, RelevanceJudgement | undefined>();
  const answer = await meaning.embed(embedder, [...questions, ...DECOY_QUESTIONS], passages.flat());
  if (!answer) return out;
  const questionVectors = questions.map((q) => answer.asked.get(q) as number[]);
  const decoys = DECOY_QUESTIONS.map((q) => answer.asked.get(q) as number[]);
  let next = 0;
  pages.forEach((page, i) => {
    const own = passages[i].map(() => answer.texts[next++]);
    if (!own.length) return;
    const { verdict, margin } = meaningVerdict(own, questionVectors, decoys);
    out.set(page.id, verdict === 'unsure' ? undefined : { by: 'meaning', verdict, margin });
  });
  return out;
}

/** How long a server that did not answer within the wait is passed over: its pages go to the triage without waiting. */
const SLOW_SERVER_PAUSE_MS = 60_000;

/**
 * The embedding requests of one worker, each bounded by the wait: a page's passages are sent once
 * per attempt, and the request is given up (aborted) when the wait is over; a server that did not
 * answer in time, or failed, is passed over for a while, so the next pages do not wait for it. The
 * questions and the decoys are embedded once per worker and model, in a request of their own that
 * no page's wait aborts (a slow server's answer still arrives for the pages after the pause).
 */
export class MeaningJudge {
  private readonly asked = new Map<string, Map<string, Promise<number[]>>>();
  private readonly pausedUntil = new Map<string, number>();
  private static readonly MAX_TEXTS = 2_000;

  constructor(private readonly waitMs: number) {}

  /** The vectors of `asked` and of `texts`, or undefined when the server is passed over, fails or does not answer within the wait. */
  async embed(embedder: Embedder, asked: string[], texts: string[]): Promise<{ asked: Map<string, number[]>; texts: number[][] } | undefined> {
    if ((this.pausedUntil.get(embedder.model) ?? 0) > Date.now()) return undefined;
    const giveUp = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.waitMs)));
    const answer = (async () => {
      const [questions, vectors] = await Promise.all([this.vectorsOf(embedder, asked), embedder.embed(texts, giveUp.signal)]);
      return { asked: questions, texts: vectors };
    })();
    try {
      const result = await Promise.race([answer, waited]);
      if (!result) this.pause(embedder.model);
      return result;
    } catch {
      // The embedding server down or refusing: these pages are left to words and the triage.
      this.pause(embedder.model);
      return undefined;
    } finally {
      clearTimeout(timer);
      giveUp.abort();
      answer.catch(() => undefined);
    }
  }

  private pause(model: string): void {
    this.pausedUntil.set(model, Date.now() + SLOW_SERVER_PAUSE_MS);
  }

  /** The questions' vectors: those this worker has not asked for yet in one request, the rest as already asked. */
  private async vectorsOf(embedder: Embedder, texts: string[]): Promise<Map<string, number[]>> {
    let known = this.asked.get(embedder.model);
    if (!known || known.size > MeaningJudge.MAX_TEXTS) this.asked.set(embedder.model, (known = new Map()));
    const missing = [...new Set(texts.filter((t) => !known.has(t)))];
    if (missing.length) {
      const request = embedder.embed(missing);
      missing.forEach((t, i) => known.set(t, request.then((vectors) => vectors[i])));
      // A failed request is forgotten: the next page asks again.
      request.catch(() => missing.forEach((t) => known.delete(t)));
    }
    const vectors = await Promise.all(texts.map((t) => known.get(t) as Promise<number[]>));
    return new Map(texts.map((t, i) => [t, vectors[i]]));
  }
}
