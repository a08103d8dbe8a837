// The words the product writes into a report itself — section titles, the gap and "not written"
// lines, the Notes and the citation check — in the asker's language (the plan's research context).
// English is the fallback; the other languages are in labels-translations.ts.
import { RUN_LABELS } from './labels-runs';
import { SECTION_LABELS } from './labels-sections';
import type { ReportLabels } from './labels-shape';
import { TRANSLATIONS } from './labels-translations';

export type { ReportLabels, ResumedText, WhatChangedLabels } from './labels-shape';

const EN: ReportLabels = {
  sources: 'Sources',
  notes: 'Notes',
  citationCheck: 'Citation check',
  openQuestions: 'Open questions',
  noSourceCited: '_No source is cited._',
  quote: (t) => `“${t}”`,
  fetched: (d) => `fetched ${d}`,
  published: (d) => `published ${d}`,
  updated: (d, server) => (server ? `last modified ${d} (by the web server)` : `updated ${d}`),
  snapshot: (id) => `snapshot ${id}`,
  relevance: (x) => `relevance ${x}`,
  onlyOpening: 'only the opening was readable: paywall',
  stale: 'stale: older than the period asked',
  teasers: (ids) => `${ids}: only the opening of the article was readable (the rest is behind a paywall or a login); what is cited from it rests on that opening, not on the whole article.`,
  gap: (t) => `**Gap:** the research looked for material on “${t}” and found nothing it could cite.`,
  queriesTried: (q) => `Queries tried: ${q}.`,
  notWritten: (stopped, t) => `**Not written:** the research ${stopped} before it reached “${t}”.`,
  coveredAbove: (t) => `**Covered above:** what the research found on “${t}” is already said in the sections before.`,
  stopped: { 'was cancelled': 'was cancelled', 'ran out of time (timeout_seconds)': 'ran out of time (timeout_seconds)', failed: 'failed' },
  searchOutage: (m) => `**Search was unavailable** (${m}): this report is written from the sources gathered before the outage`,
  notSearched: (q) => `not searched: ${q}`,
  unfinished: (stopped) => `**Unfinished:** the research ${stopped}; sections it never reached say so.`,
  ...RUN_LABELS.en,
  ...SECTION_LABELS.en,
  shortfalls: 'Where the research fell short of its own quality bar (another round could not change it):',
  shortfall: {
    fetched: (n, min) => `Only ${n} source(s) could be fetched and read (the bar is ${min}).`,
    noHighQuality: 'No source of high credibility: none from an official, academic or established publisher, and none the analysis rated high.',
    searches: (done, all, known, unfetched) =>
      `Only ${done} of the ${all} searches led to a page of their own that was fetched (the bar is half of them)${known ? `; ${known} added no page of their own (another search had found their pages first, or the source limit was reached)` : ''}${unfetched ? `; ${unfetched} found only pages that could not be fetched` : ''}.`,
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
  shortOfLength: (words, target, length) => `Shorter than asked: a ${length} report of about ${target} words was asked for; the sources read held enough for ${words}, and the report was not padded.`,
  leftOut: (domain, date) => `Left out by this session's filters, never read: ${[domain ? `${domain} page(s) from domains outside those asked for` : '', date ? `${date} page(s) published outside the dates asked for` : ''].filter(Boolean).join('; ')}.`,
  beforeScope: (scope, sources) => `Older than the period asked about (${scope}): ${sources}; what they say may no longer hold.`,
  undated: (ids) => `Undated (they state no publication date, so the date filter could not be checked; read): ${ids}.`,
  skippedJudged: (n) => `${n} source(s) were not read: judged before reading not to address the question:`,
  judgedBy: { meaning: 'by meaning, about something else', words: 'shares no word with the question', model: (why) => `triage: ${why}` },
  notCounted: (n) => `${n} source(s) were read but do not address the question, so nothing is cited from them:`,
  notAnswered: (found, read, q) =>
    `**Not answered by the sources found:** the research searched ${q}, found ${found} page(s) and read ${read} of them; none addresses the question, so this report cites none. What was found and read, and why it did not count, is listed under Notes.`,
  merged: (n) => `${n} repeated claim(s) were merged into one (their citations combined).`,
  removedIds: (ids) => `**Warning:** removed citations of sources that were never fetched: ${ids}.`,
  failed: (n) => `${n} source(s) could not be fetched or parsed and were left out.`,
  rendered: (n) => `${n} source(s) build their text by script and were read rendered in a browser.`,
  unrendered: (n) => `${n} source(s) build their text by script and could not be rendered here, so they were read without it (most have no text then).`,
  addBrowser: (off) => (off ? 'To read such pages, set fetch.render to auto (FETCH_RENDER=auto).' : 'To read such pages, install Chromium (apt-get install chromium, or point CHROMIUM_PATH at a Chrome) or set JINA_API_KEY or FIRECRAWL_API_KEY.'),
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
