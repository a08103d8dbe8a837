// The final citation check: every citation resolved to a fetched source or removed, repeats merged
// once nothing else will change the text, and the generated Sources and Notes sections rebuilt
// (replacing any earlier ones, so a retried check never duplicates them) in the asker's language.
import { SHORT_OF_TARGET } from '../domain/report-length';
import { CITATION_GROUP, resolveCitations, type RemovedCitation } from './citations';
import { mergeRepeatedClaims, type MergedClaim } from './dedupe';
import { everyLanguage, labelsFor, type ReportLabels } from './labels';
import { isGenerated, isOpenQuestionsTitle, parseReport, renderReport, type ParsedReport } from './markdown';
import { openQuestions, stillMissing } from './open-questions';
import { resumedNote, type ResumedRun } from './resumed';
import { placeSectionFindings, type SectionFindings, type SectionPlaced } from './section-findings';
import { finishSections, isPlaceholderOnly } from './sections';

export interface CitableSource {
  id: string;
  title: string;
  url: string;
  retrieved_at?: string;
  file_id?: string;
  /** Credibility tier from source vetting. */
  tier?: string;
  /** The page showed only the opening of its article (paywall, login). */
  teaser?: boolean;
  /** When the source says it was published and updated (ISO 8601); updated_from http-last-modified: only the server said. */
  published?: string;
  updated?: string;
  updated_from?: string;
}

export interface VerifiedReport {
  markdown: string;
  removed: string[];
  cited: string[];
  /** Every citation found in the text, whatever its shape. */
  citations_found: number;
  /** Citations removed (unknown ids, links to pages never fetched), each with its claim. */
  removed_citations: RemovedCitation[];
  /** Repeated claims the final check merged (after every removal). */
  merged: MergedClaim[];
  /** Empty outline sections the check wrote findings into, or pointed to where other sections say them. */
  placed: SectionPlaced[];
}

/**
 * The report's notes: what the research knows about itself that the final check writes into the
 * Notes and gap statements. The verify-citations activity's input carries exactly this record
 * (snake_case, as recorded in workflow histories), so it is written once.
 */
export interface ReportNotes {
  /** The asker's language (BCP 47): the report's own words follow it. */
  language?: string;
  /** Overall content fidelity of the analysis. */
  content_fidelity?: number;
  open_gaps?: number;
  open_gap_list?: string[];
  confidence?: Record<string, number>;
  contradictions?: string[];
  /** Relevance of each scored source to its sub-question (0..1). */
  relevance?: Record<string, number>;
  /** Sources not read because they scored below min_relevance. */
  /** The report's length asked for (report_length) and its word target. */
  length_asked?: { length: string; words: number };
  /** Pages the session's filters left out: by domain, by date. */
  left_out?: { domain: number; date: number };
  /** Sources read without a date while the session filters by date. */
  undated?: string[];
  /** Sources read that were published before the period the question asks about (the planner's time scope). */
  before_scope?: { scope: string; sources: string[] };
  skipped_sources?: { id: string; title: string; url: string; score: number; judged?: { by: 'meaning' | 'model' | 'words'; why?: string } }[];
  /** Sources read whose reader found they do not address the question: listed, never cited. */
  not_counted?: { id: string; title: string; url: string; reason: string }[];
  min_relevance?: number;
  /** Repeated claims merged while the report was patched. */
  merged_claims?: number;
  /** The queries searched, named in sections that found nothing. */
  searched_queries?: string[];
  /** Set when every search provider failed and the session went on without search: said first, plainly. */
  search_outage?: { message: string; queries_not_searched: string[] };
  /** The research stopped before it was done ("was cancelled", "ran out of time"): said in every unwritten section. */
  stopped?: string;
  /** What the gathering and analysis fell short of that no further round could change. */
  shortfalls?: string[];
  /** Earlier runs that stopped early and what the runs after them added. */
  resumed?: ResumedRun[];
  /** Sources whose text is built by script, read rendered in a browser. */
  rendered_sources?: string[];
  /** Sources whose text is built by script that could not be rendered (why: no browser, fetch.render is never, the render failed). */
  unrendered_sources?: { id: string; title: string; url: string; reason: string }[];
  /** The findings that bear on each outline section still empty: written there, or pointed to, instead of a gap. */
  section_findings?: SectionFindings[];
}

export interface CheckOptions {
  /** false: repeats are left to the caller (panel answers side by side merge by paragraph). */
  mergeRepeats?: boolean;
}

const MAX_QUERIES_NAMED = 6;

export function verifyReportCitations(markdown: string, fetched: CitableSource[], failedSources: number, extra: ReportNotes = {}, options: CheckOptions = {}): VerifiedReport {
  const labels = labelsFor(extra.language);
  const notCounted = new Set((extra.not_counted ?? []).map((x) => x.id));
  // A source its reader found off the question is never evidence, whoever cites it.
  const citable = fetched.filter((s) => !notCounted.has(s.id));
  const known = new Map(citable.map((s) => [s.id, s]));
  const report = parseReport(markdown);
  report.sections = report.sections.filter((s) => !isGenerated(s.title));
  let found = 0;
  let resolvedCount = 0;
  const removedCitations: RemovedCitation[] = [];
  const resolve = (text: string) => {
    const r = resolveCitations(text, citable);
    found += r.found;
    resolvedCount += r.resolved;
    removedCitations.push(...r.removed);
    return r.markdown;
  };
  report.head = resolve(report.head);
  for (const s of report.sections) s.body = resolve(s.body);
  // A section the writer left empty, though findings bear on it, gets them (before ids are checked and repeats merged).
  const placed = extra.stopped ? [] : placeSectionFindings(report.sections, extra.section_findings, { citable: (id) => known.has(id), language: extra.language ?? 'en', labels, isEmpty: isEmptySection });
  // A citation of a source read and found off the question was fetched: it goes for that reason.
  for (const r of removedCitations) if (r.ids?.length && r.ids.every((id) => notCounted.has(id))) r.reason = `${r.ids.join(', ')} does not address the question`;
  const removed = new Set<string>(removedCitations.flatMap((r) => r.ids ?? []).filter((id) => !notCounted.has(id)));
  const cited = new Set<string>();
  const fix = (text: string) =>
    text
      .replace(CITATION_GROUP, (_m, group: string) => {
        const ids = group.split(/\s*[,;]\s*/);
        const kept = ids.filter((id) => known.has(id));
        ids.filter((id) => !known.has(id) && !notCounted.has(id)).forEach((id) => removed.add(id));
        kept.forEach((id) => cited.add(id));
        return kept.length ? `[${kept.join(', ')}]` : '';
      })
      .replace(/[ \t]+([.,;:])/g, '$1');
  report.head = fix(report.head);
  for (const s of report.sections) s.body = citationsAfterClaims(fix(s.body));
  // Repeats are merged last, once every removal is done: a sentence that differed from another
  // only by a citation now gone is the same sentence.
  const repeated = options.mergeRepeats === false ? [] : mergeAcrossSections(report, labels);
  report.sections = finishSections(report.sections, { ...extra, labels });
  const citedSources = [...cited].map((id) => known.get(id) as CitableSource).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  // Nothing cited, though pages were found: the question itself is the first open question.
  const unanswered = !citedSources.length && !extra.stopped && !extra.search_outage && Boolean(extra.not_counted?.length || extra.skipped_sources?.length);
  const asked = /^#\s+(.+)$/m.exec(report.head)?.[1]?.trim();
  const questions = openQuestions([...(unanswered && asked ? [asked] : []), ...(extra.open_gap_list ?? [])], renderReport(report));
  const questionSection = report.sections.find((s) => isOpenQuestionsTitle(s.title));
  if (questionSection && questions.length) {
    // The outline has a section for them: listed there, once, and not again in the Notes.
    const body = isPlaceholderOnly(questionSection.body) || /^\*\*/.test(questionSection.body) ? '' : questionSection.body;
    questionSection.body = [body, questions.map((q) => `- ${escapeInline(q)}`).join('\n')].filter(Boolean).join('\n\n');
  }
  if (unanswered) {
    const queries = (extra.searched_queries ?? []).slice(0, MAX_QUERIES_NAMED).map((q) => labels.quote(escapeInline(q))).join(', ');
    const read = extra.not_counted?.length ?? 0;
    report.head = `${report.head}\n\n> ${labels.notAnswered(read + (extra.skipped_sources?.length ?? 0), read, queries || '—')}`;
  }
  const written = wordCount(renderReport(report));
  report.sections.push({ title: labels.sources, body: sourcesList(citedSources, extra, labels) });
  const missing = stillMissing(extra.open_gap_list ?? [], renderReport(report));
  const notes = notesList({ extra, labels, found, resolved: resolvedCount, removedCitations, removed, failedSources, merged: (extra.merged_claims ?? 0) + repeated.length, questions: questionSection ? [] : questions, missing, teasers: citedSources.filter((s) => s.teaser).map((s) => s.id) });
  // Asked for a length the sources could not fill: said, not padded.
  if (extra.length_asked && written < SHORT_OF_TARGET * extra.length_asked.words) notes.unshift(`- ${labels.shortOfLength(written, extra.length_asked.words, extra.length_asked.length)}`);
  if (notes.length) report.sections.push({ title: labels.notes, body: notes.join('\n') });
  return {
    markdown: renderReport(report),
    removed: [...removed],
    cited: citedSources.map((s) => s.id),
    citations_found: found,
    removed_citations: removedCitations,
    merged: repeated,
    placed,
  };
}

const GAP_LEADS = everyLanguage((l) => l.gap('')).map((line) => /^\*\*[^*]+\*\*/.exec(line)?.[0] ?? line);

/** Nothing written, or only what an earlier check said of nothing written. */
function isEmptySection(body: string): boolean {
  return isPlaceholderOnly(body) || GAP_LEADS.some((lead) => body.trim().startsWith(lead));
}

/**
 * Merges repeated claims across every outline section; a section whose every claim was said
 * before says so instead of standing empty.
 */
function mergeAcrossSections(report: ParsedReport, labels: ReportLabels): MergedClaim[] {
  const before = report.sections.map((s) => !isPlaceholderOnly(s.body));
  const out = mergeRepeatedClaims(renderReport({ head: '', sections: report.sections }));
  if (!out.merged.length) return [];
  const merged = parseReport(out.markdown).sections;
  report.sections.forEach((s, i) => {
    const body = merged[i]?.body ?? '';
    s.body = before[i] && isPlaceholderOnly(body) ? labels.coveredAbove(s.title) : body;
  });
  return out.merged;
}

/** "published 2019-11-19", and "updated …" when it was updated on another day. */
function dateDetails(s: CitableSource, labels: ReportLabels): string[] {
  const day = (iso: string | undefined) => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : undefined);
  const published = day(s.published);
  const updated = day(s.updated);
  return [
    ...(published ? [labels.published(published)] : []),
    ...(updated && updated !== published ? [labels.updated(updated, s.updated_from === 'http-last-modified')] : []),
  ];
}

/** Words of the report's text (headings and citations included, as a reader counts them roughly). */
function wordCount(markdown: string): number {
  return (markdown.replace(/\[S\d+(?:,\s*S\d+)*\]/g, ' ').match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

function sourcesList(sources: CitableSource[], extra: ReportNotes, labels: ReportLabels): string {
  if (!sources.length) return labels.noSourceCited;
  const stale = new Set(extra.before_scope?.sources.map((entry) => entry.split(' ')[0]));
  return sources
    .map((s) => {
      const details = [s.tier, stale.has(s.id) && labels.stale, ...dateDetails(s, labels), s.retrieved_at && labels.fetched(s.retrieved_at), s.file_id && labels.snapshot(s.file_id)].filter(Boolean);
      const relevance = extra.relevance?.[s.id];
      if (relevance !== undefined) details.push(labels.relevance(relevance.toFixed(2)));
      if (s.teaser) details.push(labels.onlyOpening);
      return `- [${s.id}] ${escapeInline(s.title || s.url)} — <${s.url}>${details.length ? ` (${details.join(', ')})` : ''}`;
    })
    .join('\n');
}

interface NotesInput {
  extra: ReportNotes;
  labels: ReportLabels;
  found: number;
  resolved: number;
  removedCitations: RemovedCitation[];
  removed: Set<string>;
  failedSources: number;
  merged: number;
  questions: string[];
  /** The gaps stated as statements, uncited. */
  missing: string[];
  /** Cited sources whose page showed only its opening. */
  teasers: string[];
}

function notesList({ extra, labels, found, resolved, removedCitations, removed, failedSources, merged, questions, missing, teasers }: NotesInput): string[] {
  const notes: string[] = [];
  if (extra.search_outage) {
    const missed = extra.search_outage.queries_not_searched;
    const outage = labels.searchOutage(escapeInline(extra.search_outage.message));
    notes.push(`> ${outage}${missed.length ? `; ${labels.notSearched(missed.slice(0, 10).map((q) => labels.quote(escapeInline(q))).join(', '))}` : ''}.`);
  }
  if (extra.resumed?.length) notes.push(...resumedNote(extra.resumed, escapeInline, labels));
  if (extra.stopped) notes.push(`> ${labels.unfinished(stoppedPhrase(extra.stopped, labels))}`);
  if (extra.shortfalls?.length) notes.push(`- ${labels.shortfalls}\n${shortfallLines(extra.shortfalls, labels).map((f) => `  - ${escapeInline(f)}`).join('\n')}`);
  notes.push(citationSummary(found, resolved, removedCitations, labels));
  if (teasers.length) notes.push(`- ${labels.teasers(teasers.join(', '))}`);
  if (extra.not_counted?.length) {
    notes.push(
      `- ${labels.notCounted(extra.not_counted.length)}\n${extra.not_counted
        .slice(0, 20)
        .map((x) => `  - ${x.id} ${escapeInline(x.title || x.url)} — <${x.url}>: ${escapeInline(x.reason)}`)
        .join('\n')}`,
    );
  }
  if (extra.left_out) notes.push(`- ${labels.leftOut(extra.left_out.domain, extra.left_out.date)}`);
  if (extra.undated?.length) notes.push(`- ${labels.undated(extra.undated.join(', '))}`);
  if (extra.before_scope) notes.push(`- ${labels.beforeScope(escapeInline(extra.before_scope.scope), extra.before_scope.sources.join(', '))}`);
  const judgedSkips = (extra.skipped_sources ?? []).filter((x) => x.judged);
  const scoreSkips = (extra.skipped_sources ?? []).filter((x) => !x.judged);
  if (judgedSkips.length) {
    const why = (j: { by: 'meaning' | 'model' | 'words'; why?: string }) => (j.by === 'model' ? labels.judgedBy.model(j.why ?? '') : labels.judgedBy[j.by]);
    notes.push(
      `- ${labels.skippedJudged(judgedSkips.length)}\n${judgedSkips
        .slice(0, 20)
        .map((x) => `  - ${x.id} ${escapeInline(x.title || x.url)} — <${x.url}> (${escapeInline(why(x.judged as { by: 'meaning' | 'model' | 'words'; why?: string }))})`)
        .join('\n')}`,
    );
  }
  // Sessions from before pages were judged: skipped on their word score.
  if (scoreSkips.length) {
    notes.push(
      `- ${labels.skipped(scoreSkips.length, String(extra.min_relevance ?? '—'))}\n${scoreSkips
        .slice(0, 20)
        .map((x) => `  - ${x.id} ${escapeInline(x.title || x.url)} — <${x.url}> (${labels.relevance(x.score.toFixed(2))})`)
        .join('\n')}`,
    );
  }
  if (merged) notes.push(`- ${labels.merged(merged)}`);
  if (removed.size) notes.push(`> ${labels.removedIds([...removed].sort((a, b) => idNumber(a) - idNumber(b)).join(', '))}`);
  if (failedSources) notes.push(`- ${labels.failed(failedSources)}`);
  notes.push(...renderingNotes(extra, labels));
  if (extra.content_fidelity !== undefined && extra.content_fidelity < 1) {
    notes.push(`- ${labels.fidelity(Math.round(extra.content_fidelity * 100), fidelityBand(extra.content_fidelity, labels))}`);
  }
  if (extra.confidence) {
    const counts = Object.entries(extra.confidence).filter(([, n]) => n > 0).map(([level, n]) => `${n} ${labels.levels[level] ?? level}`);
    if (counts.length) notes.push(`- ${labels.confidence(counts.join(', '))}`);
  }
  if (extra.contradictions?.length) {
    notes.push(`- ${labels.disagree}\n${extra.contradictions.slice(0, 10).map((c) => `  - ${escapeInline(c)}`).join('\n')}`);
  }
  if (questions.length) {
    notes.push(`- ${labels.openQuestionsIntro}\n${questions.slice(0, 10).map((q) => `  - ${escapeInline(q)}`).join('\n')}`);
  }
  if (missing.length) notes.push(`- ${labels.stillMissing}\n${missing.slice(0, 10).map((m) => `  - ${escapeInline(m)}`).join('\n')}`);
  return notes;
}

/** How many sources needed a browser: read rendered, or not rendered — and then how to add one. */
function renderingNotes(extra: ReportNotes, labels: ReportLabels): string[] {
  const notes: string[] = [];
  if (extra.rendered_sources?.length) notes.push(`- ${labels.rendered(extra.rendered_sources.length)}`);
  const unrendered = extra.unrendered_sources ?? [];
  if (unrendered.length) {
    const off = unrendered.every((x) => x.reason === 'fetch.render is never');
    const list = unrendered.slice(0, 20).map((x) => `  - ${x.id} ${escapeInline(x.title || x.url)} — <${x.url}> (${escapeInline(x.reason)})`);
    notes.push([`- ${labels.unrendered(unrendered.length)} ${labels.addBrowser(off)}`, ...list].join('\n'));
  }
  return notes;
}

function citationSummary(found: number, resolved: number, removed: RemovedCitation[], labels: ReportLabels): string {
  // A removed group like [S9, S12] is one entry but two citations: found = resolved + removed.
  const removedCount = removed.reduce((n, r) => n + (r.ids?.length ?? 1), 0);
  const head = `- ${labels.citations(found, resolved, removedCount)}`;
  const list = removed
    .slice(0, 30)
    .map((r) => `  - ${labels.removed(escapeInline(r.citation), escapeInline(reasonIn(r.reason, labels)))}${r.claim ? `: ${labels.quote(escapeInline(r.claim))}` : ''}`);
  if (removed.length > 30) list.push(`  - ${labels.andMore(removed.length - 30)}`);
  return [head, ...list].join('\n');
}

/** The resolver's English reason, in the report's language. */
function reasonIn(reason: string, labels: ReportLabels): string {
  let m: RegExpExecArray | null;
  if ((m = /^no fetched source (.+)$/.exec(reason))) return labels.reasons.noSource(m[1]);
  if ((m = /^links to (\S+), which was never fetched$/.exec(reason))) return labels.reasons.neverFetched(m[1]);
  if ((m = /^footnote (\S+) names no fetched source$/.exec(reason))) return labels.reasons.footnote(m[1]);
  if ((m = /^image from (\S+), which was never fetched$/.exec(reason))) return labels.reasons.image(m[1]);
  if ((m = /^(.+) does not address the question$/.exec(reason))) return labels.reasons.offQuestion(m[1]);
  return reason;
}

/** The shortfalls in a reader's words; with nothing read, the findings' count and confidence go without saying. */
function shortfallLines(shortfalls: string[], labels: ReportLabels): string[] {
  const noneRead = shortfalls.some((f) => /^findings: none of the \d+ fetched sources? was read\b/.test(f));
  const follows = (f: string) => noneRead && /^findings: (?:only \d+ findings? \(|no finding with high)/.test(f);
  return shortfalls.filter((f) => !follows(f)).map((f) => shortfallIn(f, labels));
}

/** A quality gate's English sentence ("findings: only 1 of the 3 sources read gave a finding (…)"), as a reader reads it, in the report's language. */
function shortfallIn(text: string, labels: ReportLabels): string {
  const said = labels.shortfall;
  let m: RegExpExecArray | null;
  if ((m = /^sources: only (\d+) fetched sources? \(need at least (\d+)\)$/.exec(text))) return said.fetched(Number(m[1]), Number(m[2]));
  if (/^sources: no high-quality source\b/.test(text)) return said.noHighQuality;
  if ((m = /^sources: only (\d+) of (\d+) sub-quer(?:y|ies) completed\b/.exec(text))) {
    const count = (what: RegExp) => Number(what.exec(text)?.[1] ?? 0);
    return said.searches(Number(m[1]), Number(m[2]), count(/(\d+) found no new page/), count(/(\d+) found only pages that could not be fetched/));
  }
  if ((m = /^findings: only (\d+) findings? \(need at least (\d+)\)$/.exec(text))) return said.findings(Number(m[1]), Number(m[2]));
  if (/^findings: no finding with high or confirmed confidence$/.test(text)) return said.noStrong;
  if ((m = /^findings: none of the (\d+) fetched sources? was read\b/.exec(text))) return said.noneRead(Number(m[1]));
  if ((m = /^findings: only (\d+) of the (\d+) sources? read gave a finding \((\d+)%, need at least (\d+)%\)$/.exec(text))) {
    return said.share(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]));
  }
  return text;
}

export function stoppedPhrase(stopped: string, labels: ReportLabels): string {
  return escapeInline(labels.stopped[stopped] ?? stopped);
}

/**
 * A citation group that opens a line goes to the end of the sentence it opens, as citations stand
 * everywhere else: "[S2] The cause is heat: it doubled. More text." → "The cause is heat: it
 * doubled [S2]. More text." A group the sentence already ends with takes its ids.
 */
function citationsAfterClaims(body: string): string {
  return body.replace(/^([ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?)\[(S\d+(?:, S\d+)*)\][ \t]+([^\n]*\S)[ \t]*$/gm, (line, lead: string, group: string, rest: string) => {
    if (/^\[S\d/.test(rest)) return line;
    const end = firstSentenceEnd(rest);
    let claim = rest.slice(0, end).trimEnd();
    const own = /\[(S\d+(?:, S\d+)*)\]$/.exec(claim);
    const ids = [...new Set([...(own ? own[1].split(', ') : []), ...group.split(', ')])];
    if (own) claim = claim.slice(0, own.index).trimEnd();
    return `${lead}${claim} [${ids.join(', ')}]${rest.slice(end)}`;
  });
}

const SENTENCE_STOP = /[.!?]+["'”’)]*(?=\s|$)/g;
const NOT_A_STOP = /\b(?:e\.g|i\.e|etc|vs|cf|al|fig|dr|mr|mrs|ms|no|approx|inc|ltd|jr|sr|st|z\.b|bzw|ca|usw)\.$/i;

/** Where the first sentence of a line ends: its closing punctuation (or the line's end without one). */
function firstSentenceEnd(text: string): number {
  for (const m of text.matchAll(SENTENCE_STOP)) {
    const at = m.index ?? 0;
    if (NOT_A_STOP.test(text.slice(Math.max(0, at - 6), at + 1))) continue;
    return at;
  }
  return text.length;
}

/** Every citation id in a report, in order of first appearance. */

function idNumber(id: string): number {
  return Number(id.replace(/\D/g, '')) || 0;
}

export function escapeInline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]])/g, '\\$1');
}

/** Seed 001's reading of a fidelity score. */
export function fidelityBand(score: number, labels: ReportLabels = labelsFor('en')): string {
  const [full, condensed, compressed, minimal] = labels.bands;
  if (score >= 0.9) return full;
  if (score >= 0.6) return condensed;
  if (score >= 0.3) return compressed;
  return minimal;
}
