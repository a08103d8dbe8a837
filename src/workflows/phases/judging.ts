// Judging before reading: which fetched pages the analyst reads. Meaning decides, words only order.
// A page the embedding model settles (clearly about the question, or clearly not) is read or
// skipped at once. Every other page is judged by the model's triage: one call per research round
// for all of the round's pages, made once the round has fetched what it will. A page whose word
// score reaches min_relevance is read meanwhile (the words order it first), and so is a first batch's
// worth of those below it in each branch (branch.ts); if the triage finds such a page does not address
// the question it is set aside as the analyst's own verdict would be: never cited, its findings not
// written. The other pages below it wait for the triage. Only a page that shares
// no word with the question in any language it is asked in is skipped on words alone. The analyst's
// "does not address the question" stays the last word. min_relevance 0 reads every page unjudged.
import type { PageQuestions } from '../../activities/contracts';
import type { Finding, Gap, ResearchPlan, Source } from '../../domain/types';
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
  const focus = s.state.enhancement?.focus?.trim();
  return {
    question: s.state.initial_query,
    ...(translations.length ? { translations } : {}),
    ...(focus ? { focus } : {}),
    sub_questions: (plan?.expanded_queries ?? []).map((q) => q.query),
    judge_below: s.settings.min_relevance,
    ...(models.length ? { models } : {}),
  };
}

/** What the session's searches had found up to `batch`, as relevance weighs the question's words by it. */
export function foundFor(s: ResearchSession, batch: Source[]): FoundTerms {
  return foundUpTo(s.state.initial_query, (s.state.plan?.expanded_queries ?? []).map((q) => q.query), s.state.sources, batch);
}

/** read: now, settled; confirm: now, and judged by the round's triage; judge: after the triage; skip: never. */
type Standing = 'read' | 'confirm' | 'judge' | 'skip';

function standingOf(s: ResearchSession, src: Source): Standing {
  if (s.settings.min_relevance <= 0) return 'read';
  if (src.judged) return src.judged.verdict === 'no' ? 'skip' : 'read';
  return (src.relevance ?? 1) >= s.settings.min_relevance ? 'confirm' : 'judge';
}

/**
 * Sorts fetched pages: those to read now (`confirm`: those of them still to be judged) and those
 * that wait to be judged. A page scored before this build (or whose fetch did not score it) is
 * scored here; a page judged not to address the question is marked skipped, listed, never read.
 */
export async function sortForReading(s: ResearchSession, fetched: Source[]): Promise<{ read: Source[]; confirm: Source[]; judge: Source[] }> {
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
  const sorted = { read: [] as Source[], confirm: [] as Source[], judge: [] as Source[] };
  for (const src of fetched) {
    const standing = standingOf(s, src);
    if (standing === 'skip') markSkipped(s, src);
    else if (standing === 'judge') sorted.judge.push(src);
    else {
      sorted.read.push(src);
      if (standing === 'confirm') sorted.confirm.push(src);
    }
  }
  return sorted;
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
 * The model's triage of `sources`, in one call; each gets its verdict. One it finds does not
 * address the question is skipped if unread, set aside as off the question if read (never cited).
 * A page the model leaves out, or all of them when the call fails after its retries, is read for
 * the analyst to judge: no page is skipped for want of a verdict.
 */
export async function triage(s: ResearchSession, sources: Source[], beingRead: ReadonlySet<Source> = new Set()): Promise<void> {
  const pending = sources.filter((src) => !src.judged);
  if (!pending.length) return;
  const { translations, focus } = pageQuestions(s);
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
            ...(focus ? { focus } : {}),
            sources: pending.map((src) => ({ id: src.id, url: src.url, title: src.title, snippet: src.found_as?.split('\n').slice(1).join(' ') || src.snippet, text_file_id: src.text_file_id as string, sub_question: src.query })),
            model: choice,
          }),
        (r) => ({ verdicts: r.verdicts, usage: r.usage }),
      ),
      // The round's report patches and its end wait for the verdicts: the next free slot is the triage's.
      { first: true },
    );
    verdicts = out.verdicts;
  } catch (err) {
    if (stopsResearch(err)) throw err;
    s.error(`triage of ${pending.length} page(s) failed: ${errorMessage(err)}; the analyst judges them`);
  }
  for (const src of pending) {
    const v = verdicts[src.id];
    src.judged = v ? { by: 'model', verdict: v.verdict, why: v.why } : { by: 'model', verdict: 'partly', why: 'no verdict from the triage: read for the analyst to judge' };
    if (v?.verdict !== 'no') continue;
    if (src.analyzed || beingRead.has(src) || src.relevance === undefined || src.relevance >= s.settings.min_relevance) setAside(s, src, v.why);
    else markSkipped(s, src);
  }
  dropOffQuestion(s);
}

/** A page read before the triage found it does not address the question: as the analyst's own verdict, never cited. */
function setAside(s: ResearchSession, src: Source, why: string): void {
  if (src.off_question) return;
  src.off_question = `the triage found it does not address the question: ${why}`.slice(0, 300);
  s.info(`source ${src.id} set aside: ${src.off_question}`);
}

/**
 * Takes the sources found off the question out of the session's findings; a finding left with no
 * source goes. Run when the triage sets pages aside and after each analysis, so whichever came
 * first, no finding keeps such a source.
 */
export function dropOffQuestion(s: ResearchSession): void {
  const off = new Set(s.state.sources.filter((x) => x.off_question).map((x) => x.id));
  if (!off.size) return;
  const findings = s.state.findings;
  for (let i = findings.length - 1; i >= 0; i--) {
    const f = findings[i];
    if (!f.source_ids.some((id) => off.has(id))) continue;
    f.source_ids = f.source_ids.filter((id) => !off.has(id));
    if (!f.source_ids.length) findings.splice(i, 1);
  }
}

/** Of `findings`, those the session still keeps (none that only a page set aside since stood for): what the writer is given. */
export function withoutOffQuestion(s: ResearchSession, findings: Finding[]): Finding[] {
  const kept = new Set(s.state.findings);
  return findings.filter((f) => kept.has(f));
}

/**
 * A round's triage: its branches hand over the pages they read on their words and those they
 * could not let in, and once every branch has fetched what it will, the pages are judged in one
 * call. Branches read what the words let in meanwhile; the round's report patches wait for the
 * verdicts (they are written in the background), so what the triage sets aside is never written.
 */
export class RoundTriage {
  private readonly waiting: Source[] = [];
  private readonly reading = new Set<Source>();
  private readonly gapsRead: { gaps: Gap[]; from: Source[] }[] = [];
  private readonly done = new Deferred<void>();
  private fetching: number;
  private failure: { err: unknown } | undefined;

  constructor(
    private readonly s: ResearchSession,
    branches: number,
  ) {
    this.fetching = branches;
    if (branches === 0) this.done.resolve();
  }

  /** Pages to be judged with the round's: `read` are being read meanwhile, `waiting` wait for their verdicts. */
  add(read: Source[], waiting: Source[]): void {
    this.waiting.push(...read, ...waiting);
    for (const src of read) this.reading.add(src);
  }

  /** A branch has fetched all it will (or stopped): once every one has, the round's pages are judged. Call once per branch. */
  fetched(): void {
    this.fetching -= 1;
    if (this.fetching !== 0) return;
    triage(this.s, this.waiting, this.reading).then(
      () => {
        this.dropGapsOffQuestion();
        this.done.resolve();
      },
      (err: unknown) => {
        this.failure = { err };
        this.done.resolve();
      },
    );
  }

  /**
   * Gaps an analysis of pages read beside the triage named: once the triage has set aside every one
   * of those pages, the gaps go too (they are what pages off the question lacked, not the question).
   */
  gapsFrom(gaps: Gap[], from: Source[]): void {
    this.gapsRead.push({ gaps, from });
    if (this.fetching === 0 && !this.failure) this.dropGapsOffQuestion();
  }

  private dropGapsOffQuestion(): void {
    const off = this.gapsRead.filter((x) => x.from.every((src) => src.judged?.verdict === 'no'));
    if (!off.length) return;
    const dropped = new Set(off.flatMap((x) => x.gaps));
    this.s.state.gaps = this.s.state.gaps.filter((g) => !dropped.has(g));
    this.gapsRead.splice(0, this.gapsRead.length, ...this.gapsRead.filter((x) => !off.includes(x)));
  }

  /** Once the round's pages are judged (its failure is the branches' to pass on). */
  get judged(): Promise<void> {
    return this.done.promise;
  }

  /** Once the round's pages are judged; of `sources`, the ones to read. */
  async verdictsFor(sources: Source[]): Promise<Source[]> {
    await this.done.promise;
    if (this.failure) throw this.failure.err;
    return sources.filter((src) => !src.skipped_off_topic);
  }
}
