// The words the product writes into a report itself — section titles, the gap and "not written"
// lines, the Notes and the citation check — in the asker's language (the plan's research context).
// English is the fallback; the other languages are in labels-translations.ts.
import { RUN_LABELS } from './labels-runs';
import { TRANSLATIONS } from './labels-translations';

/** A run that stopped early and what the research added after it, its text escaped and its titles quoted. */
export interface ResumedText {
  /** The run's number, when more than one stopped early. */
  run?: number;
  /** How it stopped, in the report's language ("was cancelled"). */
  stopped: string;
  /** The user's reason, or ''. */
  reason: string;
  sourcesBefore: number;
  findingsBefore: number;
  /** The sections it never reached, quoted, or ''. */
  unreached: string;
  sourcesAdded: number;
  findingsAdded: number;
  /** Of those, the ones written since, or ''. */
  written: string;
  /** The ones still not written (stated as gaps), or ''. */
  left: string;
  leftCount: number;
}

/** An enhanced version's or a scheduled run's comparison with the one before, for "What changed". */
export interface WhatChangedLabels {
  /** The section's title: a scheduled run's, and the start of an enhanced version's. */
  title: string;
  since: (version: string) => string;
  noPrevious: (id: string) => string;
  firstRun: string;
  compared: (id: string, at: string, c: { newSources: number; changedSources: number; goneSources: number; newFindings: number; changedFindings: number; goneFindings: number; reread: number }) => string;
  nothingChanged: string;
  newFindings: string;
  changedFindings: string;
  goneFindings: string;
  newSources: string;
  changedSources: string;
  goneSources: string;
  was: (before: string) => string;
  andMore: (n: number) => string;
  nothingNew: (id: string) => string;
  enhanced: (id: string, sources: number, findings: number, changed: number) => string;
  newSourcesRead: (list: string) => string;
}

export interface ReportLabels {
  sources: string;
  notes: string;
  citationCheck: string;
  openQuestions: string;
  noSourceCited: string;
  quote: (text: string) => string;
  fetched: (date: string) => string;
  snapshot: (id: string) => string;
  relevance: (score: string) => string;
  gap: (title: string) => string;
  queriesTried: (queries: string) => string;
  notWritten: (stopped: string, title: string) => string;
  coveredAbove: (title: string) => string;
  /** How the research stopped, keyed by the workflow's English phrase. */
  stopped: Record<string, string>;
  searchOutage: (message: string) => string;
  notSearched: (queries: string) => string;
  unfinished: (stopped: string) => string;
  resumedRun: (r: ResumedText) => string;
  whatChanged: WhatChangedLabels;
  shortfalls: string;
  /** The quality gates' shortfalls in a reader's words (final-check matches the gates' own sentences). */
  shortfall: {
    fetched: (n: number, min: number) => string;
    noHighQuality: string;
    searches: (done: number, all: number) => string;
    findings: (n: number, min: number) => string;
    noStrong: string;
    noneRead: (n: number) => string;
    share: (cited: number, read: number, percent: number, min: number) => string;
  };
  citations: (found: number, resolved: number, removed: number) => string;
  removed: (citation: string, reason: string) => string;
  andMore: (n: number) => string;
  /** Why a citation was removed; the resolver's reasons, by kind. */
  reasons: { noSource: (ids: string) => string; neverFetched: (url: string) => string; footnote: (label: string) => string; image: (url: string) => string; offQuestion: (ids: string) => string };
  skipped: (n: number, threshold: string) => string;
  notCounted: (n: number) => string;
  notAnswered: (found: number, read: number, queries: string) => string;
  merged: (n: number) => string;
  removedIds: (ids: string) => string;
  failed: (n: number) => string;
  fidelity: (percent: number, band: string) => string;
  bands: [full: string, condensed: string, compressed: string, minimal: string];
  confidence: (counts: string) => string;
  levels: Record<string, string>;
  disagree: string;
  openQuestionsIntro: string;
  /** The analysis's gaps that are statements, not questions: what the research looked for and did not find. */
  stillMissing: string;
  // The citation check.
  links: (ok: number, all: number) => string;
  deadLink: (cite: string, url: string, why: string) => string;
  notChecked: (why: string) => string;
  noAnswer: string;
  dois: (ok: number, all: number, unchecked: number) => string;
  doiUnresolved: (cite: string, doi: string, why: string) => string;
  /** The resolver gave no verdict (unreachable, timed out, an error of its own): not the same as a DOI that does not resolve. */
  doiUnchecked: (cite: string, doi: string, why: string) => string;
  claims: (supported: number, all: number) => string;
  claimsUnsupported: (n: number) => string;
  claimsUnverifiable: (n: number) => string;
  notSupported: (cite: string, quote: string) => string;
  citationDropped: (cite: string, quote: string) => string;
  mergedAfterCheck: (n: number) => string;
  unchecked: (n: number) => string;
  unsupportedMark: string;
}

const EN: ReportLabels = {
  sources: 'Sources',
  notes: 'Notes',
  citationCheck: 'Citation check',
  openQuestions: 'Open questions',
  noSourceCited: '_No source is cited._',
  quote: (t) => `“${t}”`,
  fetched: (d) => `fetched ${d}`,
  snapshot: (id) => `snapshot ${id}`,
  relevance: (x) => `relevance ${x}`,
  gap: (t) => `**Gap:** the research looked for material on “${t}” and found nothing it could cite.`,
  queriesTried: (q) => `Queries tried: ${q}.`,
  notWritten: (stopped, t) => `**Not written:** the research ${stopped} before it reached “${t}”.`,
  coveredAbove: (t) => `**Covered above:** what the research found on “${t}” is already said in the sections before.`,
  stopped: { 'was cancelled': 'was cancelled', 'ran out of time (timeout_seconds)': 'ran out of time (timeout_seconds)', failed: 'failed' },
  searchOutage: (m) => `**Search was unavailable** (${m}): this report is written from the sources gathered before the outage`,
  notSearched: (q) => `not searched: ${q}`,
  unfinished: (stopped) => `**Unfinished:** the research ${stopped}; sections it never reached say so.`,
  ...RUN_LABELS.en,
  shortfalls: 'Where the research fell short of its own quality bar (another round could not change it):',
  shortfall: {
    fetched: (n, min) => `Only ${n} source(s) could be fetched and read (the bar is ${min}).`,
    noHighQuality: 'No source of high credibility: none from an official, academic or established publisher, and none the analysis rated high.',
    searches: (done, all) => `Only ${done} of the ${all} searches led to a page that could be fetched (the bar is half of them).`,
    findings: (n, min) => `Only ${n} finding(s) (the bar is ${min}).`,
    noStrong: 'No finding was rated high confidence or confirmed.',
    noneRead: (n) => `None of the ${n} page(s) found was read: each was off topic for the question (listed below).`,
    share: (cited, read, p, min) => `Only ${cited} of the ${read} source(s) read gave a finding (${p} %; the bar is ${min} %).`,
  },
  citations: (f, r, n) => `Citations: ${f} found in the text; ${r} resolved to fetched sources${n ? `; ${n} removed` : ''}.`,
  removed: (c, why) => `Removed ${c} (${why})`,
  andMore: (n) => `…and ${n} more.`,
  reasons: {
    noSource: (ids) => `no fetched source ${ids}`,
    neverFetched: (url) => `links to ${url}, which was never fetched`,
    footnote: (label) => `footnote ${label} names no fetched source`,
    image: (url) => `image from ${url}, which was never fetched`,
    offQuestion: (ids) => `${ids} does not address the question`,
  },
  skipped: (n, t) => `${n} source(s) were not read: off-topic for their sub-question (relevance below ${t}):`,
  notCounted: (n) => `${n} source(s) were read but do not address the question, so nothing is cited from them:`,
  notAnswered: (found, read, q) =>
    `**Not answered by the sources found:** the research searched ${q}, found ${found} page(s) and read ${read} of them; none addresses the question, so this report cites none. What was found and read, and why it did not count, is listed under Notes.`,
  merged: (n) => `${n} repeated claim(s) were merged into one (their citations combined).`,
  removedIds: (ids) => `**Warning:** removed citations of sources that were never fetched: ${ids}.`,
  failed: (n) => `${n} source(s) could not be fetched or parsed and were left out.`,
  fidelity: (p, band) => `Content fidelity ${p}% (${band}): some sources were condensed to fit the model's context.`,
  bands: ['full: all content at original fidelity', 'condensed: some content summarized', 'compressed: significant summarization applied', 'minimal: heavy compression'],
  confidence: (c) => `Confidence of the findings: ${c}.`,
  levels: { low: 'low', medium: 'medium', high: 'high', confirmed: 'confirmed', speculation: 'speculation' },
  disagree: 'Sources disagree:',
  openQuestionsIntro: 'Open questions the research could not close:',
  stillMissing: 'Still missing (the research looked for it and found nothing to cite):',
  links: (ok, all) => `Links: ${ok} of ${all} cited link(s) answered.`,
  deadLink: (cite, url, why) => `Dead link${cite}: <${url}> (${why})`,
  notChecked: (why) => `not checked: ${why}`,
  noAnswer: 'no answer',
  dois: (ok, all, unchecked) => `DOIs: ${ok} of ${all} cited DOI(s) resolved${unchecked ? `; ${unchecked} could not be checked` : ''}.`,
  doiUnresolved: (cite, doi, why) => `DOI does not resolve${cite}: ${doi} (${why})`,
  doiUnchecked: (cite, doi, why) => `DOI not checked${cite}: ${doi} (the resolver gave no answer: ${why})`,
  claims: (s, all) => `Claims: ${s} of ${all} cited sentence(s) supported by their sources`,
  claimsUnsupported: (n) => `${n} not supported`,
  claimsUnverifiable: (n) => `${n} could not be checked`,
  notSupported: (cite, q) => `Not supported${cite}: “${q}”`,
  citationDropped: (cite, q) => `Citation removed${cite} (the source does not say it; another cited source does): “${q}”`,
  mergedAfterCheck: (n) => `${n} repeated sentence(s) merged into the one they repeat after the check.`,
  unchecked: (n) => `${n} further cited sentence(s) were not checked.`,
  unsupportedMark: '(not supported by the cited source)',
};

const ALL: Record<string, ReportLabels> = { en: EN, ...TRANSLATIONS };

/** The labels for a BCP 47 language tag ("de", "de-AT", "zh-Hans"); English for any other. */
export function labelsFor(language: string | undefined): ReportLabels {
  const base = (language ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return ALL[base] ?? EN;
}

/** Every language's words for one label: a generated part is recognised whatever language wrote it. */
export function everyLanguage(pick: (l: ReportLabels) => string): string[] {
  return [...new Set(Object.values(ALL).map(pick))];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A pattern matching any language's form of one label. */
export function anyLanguage(pick: (l: ReportLabels) => string): string {
  return everyLanguage(pick).map(escapeRegExp).join('|');
}
