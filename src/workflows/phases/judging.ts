// Judging before reading: which fetched pages the analyzer reads. Meaning decides, words only
// order. A page whose word score reaches min_relevance is read (the analyzer's "does not address
// the question" is the last word). A page below it is judged by meaning: by the embedding model
// when the fetch could (its verdict comes back with the page), else by the model's triage, one
// call per round for all of the round's doubtful pages, made once the round has fetched what it
// will, while the pages the words let in are already being read. Only a page that shares no word
// with the question in any language it is asked in is skipped without a model's word.
import type { PageQuestions } from '../../activities/contracts';
import type { ResearchPlan, Source } from '../../domain/types';
import { foundUpTo, type FoundTerms } from '../../report/words';
import { model, store } from '../activities';
import { Deferred } from '../concurrency';
import { errorMessage, type ResearchSession } from '../session';
import { stopsResearch } from './budget';
import { callModel } from './providers';

/** What a page of the session is judged against before it is read (its sub-question added by the caller). */
export function pageQuestions(s: ResearchSession): Omit<PageQuestions, 'sub_question' | 'found'> {
  const plan = s.state.plan as ResearchPlan | undefined;
  const translations = (plan?.translations ?? []).map((t) => t.question);
  const models = [...new Set(Object.values(s.state.providers?.model_chains ?? {}).flat())];
  return {
    question: s.state.initial_query,
    ...(translations.length ? { translations } : {}),
    sub_questions: (plan?.expanded_queries ?? []).map((q) => q.query),
    judge_below: s.settings.min_relevance,
    ...(models.length ? { models } : {}),
  };
}

/** What the session's searches had found up to `batch`, as relevance weighs the question's words by it. */
export function foundFor(s: ResearchSession, batch: Source[]): FoundTerms {
  return foundUpTo(s.state.initial_query, (s.state.plan?.expanded_queries ?? []).map((q) => q.query), s.state.sources, batch);
}

type Standing = 'read' | 'skip' | 'judge';

/** Whether a fetched page is read, skipped, or waits to be judged. */
function standingOf(s: ResearchSession, src: Source): Standing {
  if (src.judged) return src.judged.verdict === 'no' ? 'skip' : 'read';
  return (src.relevance ?? 1) >= s.settings.min_relevance ? 'read' : 'judge';
}

/**
 * Sorts fetched pages: those to read now, and those still to be judged (the caller has them
 * triaged). A page scored before this build (or whose fetch did not score it) is scored here;
 * a page judged not to address the question is marked skipped, listed in the report, never read.
 */
export async function sortForReading(s: ResearchSession, fetched: Source[]): Promise<{ read: Source[]; judge: Source[] }> {
  const unscored = fetched.filter((src) => src.relevance === undefined && src.text_file_id);
  if (unscored.length) {
    const out = await s.tool(
      'score_relevance',
      { sources: unscored.map((src) => src.id) },
      () => store.scoreRelevance({ ...pageQuestions(s), found: foundFor(s, unscored), sources: unscored.map((src) => ({ id: src.id, text_file_id: src.text_file_id as string, sub_question: src.query, title: src.title })) }),
      (r) => ({ scores: r.scores, ...(r.judged ? { judged: r.judged } : {}) }),
    );
    for (const src of unscored) {
      src.relevance = out.scores[src.id] ?? 0;
      const judged = out.judged?.[src.id];
      if (judged) src.judged = judged;
    }
  }
  const read: Source[] = [];
  const judge: Source[] = [];
  for (const src of fetched) {
    const standing = standingOf(s, src);
    if (standing === 'read') read.push(src);
    else if (standing === 'judge') judge.push(src);
    else markSkipped(s, src);
  }
  return { read, judge };
}

function markSkipped(s: ResearchSession, src: Source): void {
  if (src.skipped_off_topic) return;
  src.skipped_off_topic = true;
  src.analyzed = true;
  const why = skipReason(src, s.settings.min_relevance);
  src.notes = `skipped unread: ${why}`;
  s.info(`source ${src.id} skipped unread (${why}): ${src.url}`);
}

function skipReason(src: Source, threshold: number): string {
  const judged = src.judged;
  if (judged?.by === 'words') return `shares no word with the question in any language it is asked in`;
  if (judged?.by === 'meaning') return `by meaning, it does not address the question (margin ${judged.margin ?? '?'})`;
  if (judged?.by === 'model') return `the triage found it does not address the question: ${judged.why ?? ''}`.trim();
  return `relevance ${src.relevance?.toFixed(2)} to "${src.query}" is below ${threshold}`;
}

/**
 * The model's triage of `sources`, in one call; each gets its verdict (a page the model left out
 * is read, for the analyzer to judge). A triage that fails after its retries leaves them to the
 * analyzer too: no page is skipped for want of a verdict.
 */
export async function triage(s: ResearchSession, sources: Source[]): Promise<void> {
  const pending = sources.filter((src) => !src.judged);
  if (!pending.length) return;
  const translations = pageQuestions(s).translations;
  let verdicts: Record<string, { verdict: 'addresses' | 'partly' | 'no'; why: string }> = {};
  try {
    const out = await callModel(s, 'triage', (choice) =>
      s.tool(
        'triage_sources',
        { sources: pending.map((src) => src.id), model: choice },
        () =>
          model.triageSources({
            question: s.state.initial_query,
            ...(translations ? { translations } : {}),
            sources: pending.map((src) => ({ id: src.id, url: src.url, title: src.title, snippet: src.found_as?.split('\n').slice(1).join(' ') || src.snippet, text_file_id: src.text_file_id as string, sub_question: src.query })),
            model: choice,
          }),
        (r) => ({ verdicts: r.verdicts, usage: r.usage }),
      ),
    );
    verdicts = out.verdicts;
  } catch (err) {
    if (stopsResearch(err)) throw err;
    s.error(`triage of ${pending.length} page(s) failed: ${errorMessage(err)}; the analyst judges them`);
  }
  for (const src of pending) {
    const v = verdicts[src.id];
    src.judged = v ? { by: 'model', verdict: v.verdict, why: v.why } : { by: 'model', verdict: 'partly', why: 'no verdict from the triage: read for the analyst to judge' };
    if (v?.verdict === 'no') markSkipped(s, src);
  }
}

/**
 * A round's triage: its branches hand over the pages they could not let in by words, and once
 * every branch has fetched what it will, the pages are judged in one call. A branch gets on with
 * reading what the words let in meanwhile.
 */
export class RoundTriage {
  private readonly waiting: Source[] = [];
  private readonly judged = new Deferred<void>();
  private fetching: number;
  private failure: { err: unknown } | undefined;

  constructor(
    private readonly s: ResearchSession,
    branches: number,
  ) {
    this.fetching = branches;
    if (branches === 0) this.judged.resolve();
  }

  /** Pages to be judged with the round's. */
  add(sources: Source[]): void {
    this.waiting.push(...sources);
  }

  /** A branch has fetched all it will (or stopped): once every one has, the round's pages are judged. Call once per branch. */
  fetched(): void {
    this.fetching -= 1;
    if (this.fetching !== 0) return;
    triage(this.s, this.waiting).then(
      () => this.judged.resolve(),
      (err: unknown) => {
        this.failure = { err };
        this.judged.resolve();
      },
    );
  }

  /** Once the round's pages are judged; of `sources`, the ones to read. */
  async verdictsFor(sources: Source[]): Promise<Source[]> {
    if (!sources.length) return [];
    await this.judged.promise;
    if (this.failure) throw this.failure.err;
    return sources.filter((src) => !src.skipped_off_topic);
  }
}
