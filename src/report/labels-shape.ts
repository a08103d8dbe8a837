// The shape of the words a report writes itself, which every language's table fills (labels.ts
// picks the table; labels-runs.ts and labels-translations.ts hold the tables beside English).

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
  /** When the source says it was published; `server` when only the web server's Last-Modified said when it last changed. */
  published: (date: string) => string;
  updated: (date: string, server: boolean) => string;
  snapshot: (id: string) => string;
  relevance: (score: string) => string;
  /** A cited source whose page showed only its opening (paywall), in its Sources entry. */
  onlyOpening: string;
  /** Beside the tier of a source published before the period the question asks about. */
  stale: string;
  /** The Notes' line on such sources (their ids). */
  teasers: (ids: string) => string;
  gap: (title: string) => string;
  queriesTried: (queries: string) => string;
  notWritten: (stopped: string, title: string) => string;
  coveredAbove: (title: string) => string;
  /** An empty outline section whose findings other sections say: where (quoted titles), and from which sources (ids, named). */
  saidUnder: (title: string, under: string, ids: string) => string;
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
    /** `known`: searches that found no page another had not found first; `unfetched`: only pages that could not be fetched. */
    searches: (done: number, all: number, known: number, unfetched: number) => string;
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
  /** Pages judged before reading not to address the question, and by whom. */
  skippedJudged: (n: number) => string;
  /** The report is shorter than the length asked for: the sources did not hold more. */
  shortOfLength: (words: number, target: number, length: string) => string;
  /** Pages the session's filters left out, by domain and by date. */
  leftOut: (domain: number, date: number) => string;
  /** Sources read without a date while the session filters by date. */
  undated: (ids: string) => string;
  /** Sources read that were published before the period the question asks about. */
  beforeScope: (scope: string, sources: string) => string;
  judgedBy: { meaning: string; words: string; model: (why: string) => string };
  notCounted: (n: number) => string;
  notAnswered: (found: number, read: number, queries: string) => string;
  merged: (n: number) => string;
  removedIds: (ids: string) => string;
  failed: (n: number) => string;
  /** Sources whose text is built by script: read rendered, or not rendered (and how to render them). */
  rendered: (n: number) => string;
  unrendered: (n: number) => string;
  addBrowser: (renderIsOff: boolean) => string;
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
