// What a careful reader finds in one finished report of the real-page world (bench:report --world
// real and test/real-pages-report.test.ts): repeated claims, off-topic sources cited, invented
// citations left, the writer's misattributions flagged or missed, read on-topic sources left
// uncited, and the open questions' shape. Only the report as a user gets it and the session's
// sources are read; what the grounded model really did comes from its log.
import type { ResearchSnapshot } from '../src/domain/types';
import { everyLanguage, labelsFor, type ReportLabels } from '../src/report/labels';
import { allSentences, unsupportedMark } from '../src/report/sentences';
import type { WriterLog } from '../test/harness/grounded-writer';
import type { RealWorld } from '../test/harness/real-world';
import { verdictFor, type RealQuestion, type Verdict } from '../test/harness/real-questions';
import { nearlySame } from './bench-claims';

export interface CitedPage {
  id: string;
  title: string;
  verdict: Verdict;
}

/** The pages a person judges on topic, by corpus page key, at each step from search to report. */
export interface RelevantPages {
  /** Among the results the session's searches returned (every query it searched). */
  returned: string[];
  /** Among the session's sources (what it took from those results). */
  found: string[];
  /** Fetched and handed to the analyst (not skipped by the relevance gate). */
  read: string[];
  /** Cited in the report's body. */
  cited: string[];
}

export interface ReportFigures {
  question: RealQuestion;
  relevant: RelevantPages;
  status: string;
  sources: number;
  read: number;
  readOnTopic: number;
  readOnTopicCited: number;
  /** Pages a person judges on topic that the relevance gate skipped unread. */
  onTopicSkipped: CitedPage[];
  cited: CitedPage[];
  claims: number;
  repeats: string[];
  inventedLeft: string[];
  misattributions: { made: number; inReport: number; flagged: number; missed: string[] };
  falseFlags: { flagged: number; of: number; examples: string[] };
  openQuestions: { items: string[]; duplicates: number; notQuestions: number; unlistedCitations: number; wellFormed: number };
}

const CITATION_GROUP = /\[(S\d+(?:\s*[,;]\s*S\d+)*)\]/g;
const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** The labels the report was written with (its Sources heading tells the language). */
export function labelsOf(report: string): ReportLabels {
  const language = ['de', 'es', 'fr', 'zh', 'ja'].find((l) => new RegExp(`^## ${labelsFor(l).sources}\\s*$`, 'm').test(report) && new RegExp(`^## ${labelsFor(l).notes}\\s*$`, 'm').test(report));
  return labelsFor(language);
}

/** The report's body (its own sections), its Sources list and its Notes, whatever language labels them. */
export function reportParts(report: string): { body: string; sources: string; notes: string } {
  const labels = labelsOf(report);
  const [body, rest = ''] = report.split(new RegExp(`^## ${labels.sources}\\s*$`, 'm'));
  const [sources, notes = ''] = rest.split(new RegExp(`^## ${labels.notes}\\s*$`, 'm'));
  return { body, sources, notes };
}

export function citedIdsIn(text: string): string[] {
  return [...new Set([...text.matchAll(CITATION_GROUP)].flatMap((m) => m[1].split(/\s*[,;]\s*/)))];
}

/** The writer's log entries made since `mark` (the lengths of its lists when the session started). */
export function logSince(log: WriterLog, mark: LogMark, question: string): WriterLog {
  return {
    misattributions: log.misattributions.slice(mark.misattributions).filter((m) => m.question === question),
    invented: log.invented.slice(mark.invented).filter((m) => m.question === question),
    repeats: log.repeats.slice(mark.repeats).filter((m) => m.question === question),
  };
}

export type LogMark = Record<keyof WriterLog, number>;
export const markLog = (log: WriterLog): LogMark => ({ misattributions: log.misattributions.length, invented: log.invented.length, repeats: log.repeats.length });

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (pick: (l: ReportLabels) => string) => everyLanguage(pick).map(escapeRegExp).join('|');

/** Items of the open-questions list (in Notes, or a section of its own), in any language. */
export function openQuestionsIn(report: string): string[] {
  const inNotes = new RegExp(`(?:${anyOf((l) => l.openQuestionsIntro)})\\n((?:[ \\t]+- .*\\n?)+)`, 'i');
  const ownSection = new RegExp(`^## (?:${anyOf((l) => l.openQuestions)})\\s*\\n+((?:- .*\\n?)+)`, 'im');
  const list = inNotes.exec(report)?.[1] ?? ownSection.exec(report)?.[1] ?? '';
  return list.split('\n').map((l) => l.replace(/^\s*- /, '').trim()).filter(Boolean);
}

/** Distinct on-topic pages of a list of URLs. */
function onTopicPages(question: RealQuestion, world: RealWorld, urls: string[]): string[] {
  const keys = urls.map((u) => world.pageAt(u)?.key).filter((k): k is string => !!k && verdictFor(question, k) === 'on');
  return [...new Set(keys)];
}

export function measureReport(question: RealQuestion, state: ResearchSnapshot, report: string, world: RealWorld, log: WriterLog, searched: string[] = []): ReportFigures {
  const { body, sources: sourceList, notes } = reportParts(report);
  const labels = labelsOf(report);
  const mark = unsupportedMark(labels).trim();
  const fetched = new Map(state.sources.filter((x) => x.status === 'fetched').map((x) => [x.id, x]));
  const verdictOf = (id: string): Verdict => {
    const page = world.pageAt(state.sources.find((x) => x.id === id)?.url ?? '');
    return page ? verdictFor(question, page.key) : 'unjudged';
  };
  const read = [...fetched.values()].filter((x) => !x.skipped_off_topic);
  const readOnTopic = read.filter((x) => verdictOf(x.id) === 'on');
  const onTopicSkipped = [...fetched.values()].filter((x) => x.skipped_off_topic && verdictOf(x.id) === 'on').map((x) => ({ id: x.id, title: x.title, verdict: 'on' as const }));
  const ids = citedIdsIn(body);
  const cited = ids.filter((id) => fetched.has(id)).map((id) => ({ id, title: fetched.get(id)?.title ?? '', verdict: verdictOf(id) }));

  const sentences = allSentences(body).filter((x) => x.source_ids.length > 0);
  const texts = sentences.map((s) => s.text);
  const repeats = texts.filter((t, i) => texts.some((u, j) => j < i && nearlySame(t, u)));

  const inventedLeft = [
    ...(body.match(/src-999|\(Source 12\)|nie-gelesen-\d+/g) ?? []),
    ...ids.filter((id) => !fetched.has(id)).map((id) => `[${id}]`),
  ];

  // A "(Source 12)" the product resolved to a real S12 cites a source that did not say it: a misattribution too.
  const made = [
    ...log.misattributions.map((m) => ({ sentence: m.sentence, cited: m.cited })),
    ...log.invented.filter((m) => m.citation === '(Source 12)' && fetched.has('S12') && !m.ids.includes('S12')).map((m) => ({ sentence: m.sentence, cited: 'S12' })),
  ];
  // The mark follows the sentence, or sits inside its span when the sentence runs on past it ("St. [S3] ⚠️ …").
  const marked = (s: (typeof sentences)[number]) => body.slice(s.start, s.end + mark.length + 1).includes(mark);
  // "- Citation removed [S3] (…): “claim”", in the report's language, its quotation marks included.
  const [dropLead, dropQuoted] = labels.citationDropped('\u0000', '\u0001').split('\u0000');
  const [, quoteOpen, quoteClose] = /^(.*)\u0001(.*)$/.exec(labels.quote('\u0001')) as RegExpExecArray;
  const removedLine = new RegExp(`- ${escapeRegExp(dropLead)} \\[([^\\]]+)\\][^\\n]*?${escapeRegExp(quoteOpen)}(.*)${escapeRegExp(quoteClose)}`, 'g');
  void dropQuoted;
  const removedInNotes = [...notes.matchAll(removedLine)].map((m) => ({ ids: m[1].split(/,\s*/), text: m[2].replace(/\\(.)/g, '$1') }));
  const matches = (text: string, m: { sentence: string }) => norm(text).includes(norm(m.sentence).split(' ').slice(0, 12).join(' '));
  let inReport = 0;
  let flagged = 0;
  const missed: string[] = [];
  for (const m of made) {
    const wrong = sentences.filter((s) => s.source_ids.includes(m.cited) && matches(s.text, m));
    const corrected = removedInNotes.some((r) => r.ids.includes(m.cited) && matches(r.text, m));
    if (!wrong.length && !corrected) continue;
    inReport++;
    if (wrong.every(marked)) flagged++;
    else missed.push(`${wrong.find((s) => !marked(s))?.text} [${m.cited}]`);
  }
  const isMisattributed = (text: string, sourceIds: string[]) => made.some((m) => sourceIds.includes(m.cited) && matches(text, m));
  const correct = sentences.filter((s) => !isMisattributed(s.text, s.source_ids));
  const rightRemovals = removedInNotes.filter((r) => !isMisattributed(r.text, r.ids));
  const wrongFlags = [
    ...correct.filter(marked).map((s) => `${s.text} [${s.source_ids.join(', ')}]`),
    ...rightRemovals.map((r) => `(citation removed) ${r.text} [${r.ids.join(', ')}]`),
  ];

  const listed = new Set(citedIdsIn(sourceList.replace(/\\\[/g, '[').replace(/\\\]/g, ']')));
  const items = openQuestionsIn(report).map((i) => i.replace(/\\(.)/g, '$1'));
  const repeated = (t: string, i: number) => items.some((u, j) => j < i && (norm(t) === norm(u) || nearlySame(t, u)));
  const isQuestion = (t: string) => /[?？]\s*(\[[^\]]*\]\s*)*$/.test(t);
  const unlisted = (t: string) => citedIdsIn(t).some((id) => !listed.has(id));
  const urlsOf = (list: { url: string }[]) => list.map((x) => x.url);
  const returned = searched.flatMap((q) => world.index.search(q, world.resultsPerQuery).map((hit) => world.addressOf(hit.page)));
  const relevant: RelevantPages = {
    returned: onTopicPages(question, world, returned),
    found: onTopicPages(question, world, urlsOf(state.sources)),
    read: onTopicPages(question, world, urlsOf(read)),
    cited: onTopicPages(question, world, urlsOf(read.filter((x) => ids.includes(x.id)))),
  };
  return {
    question,
    relevant,
    status: state.status,
    sources: state.sources.length,
    read: read.length,
    readOnTopic: readOnTopic.length,
    readOnTopicCited: readOnTopic.filter((x) => ids.includes(x.id)).length,
    onTopicSkipped,
    cited,
    claims: texts.length,
    repeats,
    inventedLeft,
    misattributions: { made: made.length, inReport, flagged, missed },
    falseFlags: { flagged: wrongFlags.length, of: correct.length + rightRemovals.length, examples: wrongFlags },
    openQuestions: {
      items,
      duplicates: items.filter(repeated).length,
      notQuestions: items.filter((t) => !isQuestion(t)).length,
      unlistedCitations: items.filter(unlisted).length,
      wellFormed: items.filter((t, i) => !repeated(t, i) && isQuestion(t) && !unlisted(t)).length,
    },
  };
}
