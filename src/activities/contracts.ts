// Inputs and outputs of every activity. Types only, so the workflow can import them freely.
// Nothing here carries page bodies: activities exchange artifact ids (claim check).
import type { SearchFilters } from '../domain/filters';
import type {
  FetchedPage,
  Clarification,
  Confidence,
  Finding,
  ResearchEvent,
  ResearchPlan,
  ResearchSettings,
  ModelUsage,
  ProviderPlan,
  RelevanceJudgement,
  ReportShape,
  SourceRef,
  LiveSnapshot,
  SourceFidelity,
} from '../domain/types';
import type { GatedPhase } from '../domain/names';
import type { PlannerPromptInput } from '../roles/planner';
import type { FoundTerms } from '../report/words';
import type { VerifyClaimsInput, VerifyClaimsOutput } from '../verify/types';
import type { CompareRunsInput, CompareRunsOutput, DeliverEmailInput, DeliverWebhookInput, DeliveryOutcome, RecordDeliveriesInput } from './delivery-contracts';
import type { ApplyReportPatchInput, ApplyReportPatchOutput, CreateReportInput, ReopenReportInput, ReportPatch, ReportVersion, VerifyCitationsInput, VerifyCitationsOutput } from './report-contracts';

export type { ModelUsage, SourceRef } from '../domain/types';
export type * from './delivery-contracts';
export type { ImproveInputInput, ImproveInputOutput, ValidateInputInput, ValidateInputOutput } from '../roles/input-check';
export type { WritePanelAnswerInput, WritePanelAnswerOutput } from '../roles/panel-writer';
export type { SynthesizePanelInput, SynthesizePanelOutput } from '../roles/synthesizer';
export type * from './report-contracts';

export interface ResolveProvidersInput {
  settings: ResearchSettings;
}

export type { ModelChoice, StreamTarget } from '../roles/role';

export type { DecomposeQueryInput, DecomposeQueryOutput } from '../roles/planner';

export interface WebSearchInput {
  query: string;
  provider: string;
  maxResults: number;
  /** The session's date and domain filters: given to the provider where it has its own, enforced on its results either way. */
  filters?: SearchFilters;
}
export interface SearchHit {
  url: string;
  /** Lower-cased host, no fragment, no tracking parameters: the key used to deduplicate. */
  normalized_url: string;
  title: string;
  snippet: string;
  provider: string;
  published_date?: string;
  score?: number;
  authors?: string[];
  year?: number;
  doi?: string;
  pdf_url?: string;
}
export interface WebSearchOutput {
  hits: SearchHit[];
  /** How long the call waited in its provider's task queue (rate limit), ms (absent in older results). */
  queued_ms?: number;
  /** Results the session's filters left out: by domain, by a date the provider gave. */
  left_out?: { domain: number; date: number };
}

export interface FetchUrlInput {
  url: string;
  /** Parse what was fetched in the same step (no hop back to the workflow between the two). */
  parse?: Pick<ParseContentInput, 'relevance'>;
}
export interface FetchUrlOutput extends FetchedPage {
  /** Served from the artifact store: fetched within the cache TTL, here or in another session. */
  from_cache?: boolean;
  /** With `parse`: the parsed text, or why the document has none (it will not parse on retry). */
  parsed?: ParseContentOutput;
  parse_error?: string;
  /** The page shows its text only once its scripts run (why): render it (renderPage). */
  render?: string;
  /** As `render`, but fetch.render is never: it is read as its HTML stands. */
  unrendered?: string;
}

/** A page that needs a browser, rendered from the HTML fetchUrl stored. */
export interface RenderPageInput {
  /** The source's URL (what the rendered copy is cached under). */
  url: string;
  /** Where the HTML came from, after redirects: the page is rendered at this address. */
  final_url: string;
  /** The HTML as fetched. */
  file_id: string;
  content_type: string;
  /** Why it needs a browser (fetchUrl's verdict). */
  reason: string;
  parse?: Pick<ParseContentInput, 'relevance'>;
}
export interface RenderPageOutput extends FetchUrlOutput {
  /** What rendered it: chromium, jina or firecrawl (absent when served from the cache). */
  rendered_by?: string;
  /** Requests the page made in the browser, and how many of them were refused. */
  requests?: number;
  refused?: number;
}

export interface ParseContentInput {
  file_id: string;
  content_type: string;
  url: string;
  /** The server's Last-Modified header: the page's updated date when it states none itself. */
  last_modified?: string;
  /**
   * Score the parsed text against these too (relevance before reading, without a step of its own):
   * the question, the sub-question that found the page and, when given, every sub-question of the
   * plan (a page found by one query may answer another).
   */
  relevance?: PageQuestions;
}

/** What a page is judged against before it is read. */
export interface PageQuestions {
  question: string;
  /** The question as its sources say it in their other languages (the plan's translations). */
  translations?: string[];
  /** What an enhanced version was asked to add (its focus): a page about it is about what is asked. */
  focus?: string;
  sub_question: string;
  sub_questions?: string[];
  found?: FoundTerms;
  /** A page whose word score is at least this is read whatever else is said of it: it is judged only below (absent: 0, none is). */
  judge_below?: number;
  /** The session's models (provider:model): an embedding model one of their providers offers judges by meaning. */
  models?: string[];
}
export interface ParseContentOutput {
  text_file_id: string;
  /** JSON: title, byline, site, published date, language, canonical URL, and section offsets. */
  meta_file_id?: string;
  /** When the document says it was published (ISO 8601), and where that was found (json-ld, meta:<tag>, url...). */
  published?: string;
  published_from?: string;
  /** When it says it was last updated; updated_from is http-last-modified when only the server said so. */
  updated?: string;
  updated_from?: string;
  language?: string;
  title: string;
  snippet: string;
  chars: number;
  sections: number;
  /** The text's relevance to the questions asked for, 0–1. */
  relevance?: number;
  /** Judged before reading (below `judge_below`): by meaning, or by words when it shares none with the question. */
  judged?: RelevanceJudgement;
  /** The page showed only the opening of its article (paywall, login): the text is a teaser. */
  teaser?: boolean;
}

export type { AnalyzedFinding, AnalyzedGap, AnalyzeSourcesInput, AnalyzeSourcesOutput, FindingConfidence, SourceForAnalysis } from '../roles/analyzer';

export type { WriteReportPatchInput, WriteReportPatchOutput } from '../roles/writer';

export interface ScoreRelevanceInput extends Omit<PageQuestions, 'sub_question'> {
  sources: { id: string; text_file_id: string; sub_question: string; title?: string }[];
}
export interface ScoreRelevanceOutput {
  /** 0..1 per source id: the word score, which orders reading. */
  scores: Record<string, number>;
  /** Per source id judged (below `judge_below`): by meaning, or by words when it shares none with the question. */
  judged?: Record<string, RelevanceJudgement>;
}

export type { TriageSourcesInput, TriageSourcesOutput } from '../roles/triage';

export interface PersistSessionInput {
  /** The live snapshot; the store adds the report's text from the artifact store. */
  snapshot: LiveSnapshot;
  events: ResearchEvent[];
}

/** The claim and link checks, with the citation check first in the same step when asked (one hop less at the end). */
export interface VerifyReportInput extends VerifyClaimsInput {
  citations?: Omit<VerifyCitationsInput, 'report_file_id'>;
  /** Verdicts a claim check ahead stored (judgeClaimsAhead): pairs unchanged since are not asked again. */
  known_verdicts_file_id?: string;
}

export type JudgeClaimsAheadInput = Omit<VerifyClaimsInput, 'check_links'>;
export interface JudgeClaimsAheadOutput {
  verdicts_file_id: string;
  /** Pairs (sentence, cited source) the model judged. */
  judged: number;
  usage?: ModelUsage;
}
export interface VerifyReportOutput extends VerifyClaimsOutput {
  /** The citation check's result (its version is the one the claims were checked on). */
  citations?: VerifyCitationsOutput;
}

/** The activities that are not a model role's (those are src/roles/index.ts's ROLE_ACTIVITIES). */
export interface ResearchActivities {
  /** The user's own documents only (LOCAL_DOCS_DIR); never the web. Empty without a corpus. */
  lookupLocalKnowledge(input: { query: string; maxResults: number }): Promise<{ hits: { title: string; url: string; snippet: string }[] }>;
  webSearch(input: WebSearchInput): Promise<WebSearchOutput>;
  fetchUrl(input: FetchUrlInput): Promise<FetchUrlOutput>;
  renderPage(input: RenderPageInput): Promise<RenderPageOutput>;
  createReport(input: CreateReportInput): Promise<ReportVersion>;
  reopenReport(input: ReopenReportInput): Promise<ReportVersion>;
  applyReportPatch(input: ApplyReportPatchInput): Promise<ApplyReportPatchOutput>;
  verifyCitations(input: VerifyCitationsInput): Promise<VerifyCitationsOutput>;
  persistSession(input: PersistSessionInput): Promise<void>;
  recordDeliveries(input: RecordDeliveriesInput): Promise<void>;
  researchSettingsSchema(): Promise<Record<string, unknown>>;
  resolveProviders(input: ResolveProvidersInput): Promise<ProviderPlan>;
  verifyClaims(input: VerifyReportInput): Promise<VerifyReportOutput>;
  judgeClaimsAhead(input: JudgeClaimsAheadInput): Promise<JudgeClaimsAheadOutput>;
  scoreRelevance(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput>;
  deliverEmail(input: DeliverEmailInput): Promise<DeliveryOutcome>;
  deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryOutcome>;
  compareWithPreviousRun(input: CompareRunsInput): Promise<CompareRunsOutput>;
}

export type { Contradiction, CriticVerdict, CritiqueFindingsInput, CritiqueFindingsOutput, FindingForReview, VettedSourceRef } from '../roles/critic';
export type { RefineGapsInput, RefineGapsOutput } from '../roles/refiner';
export type { PhaseGate, ReflectOnPhaseInput, ReflectOnPhaseOutput } from '../roles/supervisor';
