// Sessions in the real-page world, run as a user runs them (start --yes, cancel, resume,
// enhance): shared by bench:report --world real and test/real-pages-report.test.ts.
import { everyLanguage, type ResumedText } from '../src/report/labels';
import { isWhatChangedTitle, parseReport } from '../src/report/markdown';
import type { ResearchSnapshot } from '../src/domain/types';
import type { TestEnvironment } from '../test/harness';
import type { RealWorld } from '../test/harness/real-world';
import { verdictFor, type RealQuestion, type Verdict } from '../test/harness/real-questions';
import { citedIdsIn, logSince, markLog, measureReport, openQuestionsIn, reportParts, type ReportFigures } from './real-figures';

export interface Finished {
  id: string;
  state: ResearchSnapshot;
  report: string;
  /** Queries the session searched. */
  searched: string[];
}

/** Starts a session as `start --yes` does and waits for its end. */
export async function research(env: TestEnvironment, world: RealWorld, question: string, settings?: Record<string, unknown>): Promise<Finished> {
  const before = world.search.queries.length;
  const { researchId } = await env.client.start({ query: question, autoApprove: true, ...(settings ? { settings } : {}) });
  return finished(env, world, researchId, before);
}

async function finished(env: TestEnvironment, world: RealWorld, id: string, searchedFrom: number): Promise<Finished> {
  await env.client.waitForResult(id).catch(() => undefined);
  const state = await env.client.state(id);
  return { id, state, report: state.report_markdown, searched: world.search.queries.slice(searchedFrom) };
}

export type Measured = ReportFigures & { run: Finished };

export async function researchAndMeasure(env: TestEnvironment, world: RealWorld, question: RealQuestion, settings?: Record<string, unknown>): Promise<Measured> {
  const mark = markLog(world.grounded.log);
  const run = await research(env, world, question.question, settings);
  return { ...measureReport(question, run.state, run.report, world, logSince(world.grounded.log, mark, question.question), run.searched), run };
}

/** The report's own sections, without the generated ones (Sources, Notes) or a "What changed" digest. */
export const bodyOf = (report: string) => {
  const { head, sections } = parseReport(reportParts(report).body);
  return [head, ...sections.filter((s) => !isWhatChangedTitle(s.title)).map((s) => `## ${s.title}\n\n${s.body}`)].join('\n\n').trim();
};
/** Whether the report has a "What changed" section, in any language. */
export const hasWhatChanged = (report: string) => parseReport(report).sections.some((s) => isWhatChangedTitle(s.title));
export const notWrittenLines = (report: string) => everyLanguage((l) => l.notWritten('', '').split(/\*\*/)[1]).reduce((n, lead) => n + report.split(`**${lead}**`).length - 1, 0);

/** "Unfinished, then resumed:" in every language. */
const RESUMED_LEADS = everyLanguage((l) => l.resumedRun({ stopped: '', reason: '', sourcesBefore: 0, findingsBefore: 0, unreached: '', sourcesAdded: 0, findingsAdded: 0, written: '' } as ResumedText).split('**')[1]);

export interface ResumeFigures {
  cancelled: { status: string; findings: number; notWritten: number };
  resumed: { status: string; findings: number; notWritten: number; unfinishedNote: boolean; resumedNote?: string };
  bodyChanged: boolean;
  partial: string;
  final: string;
}

/**
 * Cancels a session once its first findings are in, resumes it and lets it finish. The model is
 * given a latency (as a real one has): the first analysis answers at once, the others after 3 s,
 * so the cancel lands while most sources are still being read.
 */
export async function cancelThenResume(env: TestEnvironment, world: RealWorld, question: string, settings?: Record<string, unknown>): Promise<ResumeFigures> {
  const script = world.model.script;
  let analyses = 0;
  // Every analysis takes 3 s, and the session is cancelled while the first is under way: on-topic
  // pages are few once off-topic ones are skipped unread, so a first analysis that answered at
  // once could leave the resumed run nothing new to read.
  script.delayFor = (name) => (name === 'source_analysis' && ++analyses > 0 ? 3_000 : 0);
  try {
    const { researchId: id } = await env.client.start({ query: question, autoApprove: true, ...(settings ? { settings } : {}) });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await env.client.state(id);
      if (analyses >= 1 || s.findings.length >= 1 || ['completed', 'failed'].includes(s.status) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await env.client.cancel(id, 'stopped to look at the first findings').catch(() => undefined);
    const stopped = await finished(env, world, id, world.search.queries.length);
    delete script.delayFor;
    await env.client.resume(id);
    const done = await finished(env, world, id, world.search.queries.length);
    return {
      cancelled: { status: stopped.state.status, findings: stopped.state.findings.length, notWritten: notWrittenLines(stopped.report) },
      resumed: {
        status: done.state.status,
        findings: done.state.findings.length,
        notWritten: notWrittenLines(done.report),
        unfinishedNote: everyLanguage((l) => l.unfinished('').split('**')[1]).some((lead) => done.report.includes(`**${lead}**`)),
        // The note saying what the first run missed and the resumed one added ("Unfinished, then resumed: …").
        resumedNote: done.report.split('\n').find((line) => RESUMED_LEADS.some((lead) => line.includes(`**${lead}**`))),
      },
      bodyChanged: bodyOf(stopped.report) !== bodyOf(done.report),
      partial: stopped.report,
      final: done.report,
    };
  } finally {
    delete script.delayFor;
  }
}

export interface EnhanceFigures {
  focus?: string;
  searched: string[];
  focusSearchedVerbatim: boolean;
  newSourcesRead: number;
  /** Sources the new version cites that the version it came from did not, with a person's verdict on each. */
  newlyCited: { title: string; verdict: Verdict }[];
  bodyChanged: boolean;
  whatChanged: boolean;
  openQuestions: { before: number; after: number };
  before: string;
  after: string;
  status: string;
}

/** A finished session enhanced (with a focus, or plainly) as `enhance <id> [--focus …]` does. */
export async function enhance(env: TestEnvironment, world: RealWorld, v1: Finished, question: RealQuestion, focus?: string): Promise<EnhanceFigures> {
  const from = world.search.queries.length;
  const { researchId } = await env.client.enhance(v1.id, focus ? { focus } : {});
  const v2 = await finished(env, world, researchId, from);
  const known = new Set(v1.state.sources.map((s) => s.url));
  const fresh = v2.state.sources.filter((s) => !known.has(s.url) && s.status === 'fetched' && !s.skipped_off_topic);
  const same = (q: string) => q.trim().toLowerCase() === focus?.trim().toLowerCase();
  const urlOf = (st: ResearchSnapshot, id: string) => st.sources.find((x) => x.id === id)?.url ?? '';
  const citedBefore = new Set(citedIdsIn(reportParts(v1.report).body).map((id) => urlOf(v1.state, id)));
  const newlyCited = citedIdsIn(reportParts(v2.report).body)
    .map((id) => v2.state.sources.find((x) => x.id === id))
    .filter((x) => x && !citedBefore.has(x.url))
    .map((x) => {
      const page = world.pageAt(x?.url ?? '');
      // A focus asks for more than the question: a page it is about counts as on topic beside the question's own.
      return { title: x?.title ?? '', verdict: page ? verdictFor(question, page.key) : ('unjudged' as const) };
    });
  return {
    focus,
    searched: v2.searched,
    focusSearchedVerbatim: focus ? v2.searched.some(same) : false,
    newSourcesRead: fresh.length,
    newlyCited,
    bodyChanged: bodyOf(v1.report) !== bodyOf(v2.report),
    whatChanged: hasWhatChanged(v2.report),
    openQuestions: { before: openQuestionsIn(v1.report).length, after: openQuestionsIn(v2.report).length },
    before: v1.report,
    after: v2.report,
    status: v2.state.status,
  };
}
