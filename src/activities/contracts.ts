// Inputs and outputs of every activity. Types only, so the workflow can import them freely.
// Nothing here carries page bodies: activities exchange artifact ids (claim check).
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
import type {
  ImproveInputInput,
  ImproveInputOutput,
  SynthesizePanelInput,
  SynthesizePanelOutput,
  ValidateInputInput,
  ValidateInputOutput,
  WritePanelAnswerInput,
  WritePanelAnswerOutput,
} from './panel-contracts';
import type { ApplyReportPatchInput, ApplyReportPatchOutput, CreateReportInput, ReopenReportInput, ReportPatch, ReportVersion, VerifyCitationsInput, VerifyCitationsOutput } from './report-contracts';

export type { ModelUsage, SourceRef } from '../domain/types';
export type * from './delivery-contracts';
export type * from './panel-contracts';
export type * from './report-contracts';

export interface ResolveProvidersInput {
  settings: ResearchSettings;
}

/** Model activities take the "provider:model" to call; absent, the role's first configured model. */
export interface ModelChoice {
  model?: string;
  /** Where the model's streamed output goes as AgentStream events (the session store, not history). */
  stream?: StreamTarget;
}

export interface StreamTarget {
  research_id: string;
  /** The workflow event the stream follows; stream events sort right after it. */
  after_seq: number;
}

/** The planner's prompt input (src/roles/planner.ts), for one session. */
export interface DecomposeQueryInput extends ModelChoice, PlannerPromptInput {
  researchId: string;
}
export interface DecomposeQueryOutput {
  plan: ResearchPlan;
  usage: ModelUsage;
}

export interface WebSearchInput {
  query: string;
  provider: string;
  maxResults: number;
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
  published?: string;
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

export interface SourceForAnalysis {
  id: string;
  title: string;
  url: string;
  text_file_id: string;
  /** Only the page's opening was readable (paywall). */
  teaser?: boolean;
}
export interface AnalyzeSourcesInput extends ModelChoice {
  query: string;
  research_brief: string;
  outline: string[];
  iteration: number;
  max_iterations: number;
  sources: SourceForAnalysis[];
  known_findings: string[];
  max_source_chars: number;
  /** What the critic, the reviewer or the refiner asked this round to address. */
  research_feedback?: string[];
}
/** How sure the analyzer is: the workflow's three levels, plus a fact several sources confirm and a speculation. */
export type FindingConfidence = Confidence | 'confirmed' | 'speculation';

export interface AnalyzedFinding {
  content: string;
  /** On the workflow's three-level scale: 'confirmed' counts as high, 'speculation' as low. */
  confidence: Confidence;
  source_ids: string[];
  /** The analyzer's grade as given, when it used 'confirmed' or 'speculation'. */
  graded_confidence?: FindingConfidence;
  /** A short topic label the analyzer gave the finding (e.g. "costs", "policy"). */
  category?: string;
}
export interface AnalyzedGap {
  description: string;
  suggested_queries: string[];
  priority: number;
}
export interface AnalyzeSourcesOutput {
  findings: AnalyzedFinding[];
  /** Sources the analyst read and found do not address the question, with why: never cited. */
  not_addressing?: Record<string, string>;
  gaps: AnalyzedGap[];
  /** The analyzer's rating of each source's evidence; absent in results recorded before it. */
  source_quality?: Record<string, 'low' | 'medium' | 'high'>;
  usage: ModelUsage;
  /** How much of each source the analysis could read within its token budget. */
  fidelity: Record<string, SourceFidelity>;
  budget_tokens: number;
}

export interface WriteReportPatchInput extends ModelChoice {
  query: string;
  outline: string[];
  report_file_id: string;
  findings: Finding[];
  sources: SourceRef[];
  max_update_chars: number;
  /** The asker's language (plan's research context), for the writer. */
  language?: string;
  /** Outline sections still empty: the writer puts the findings that bear on them there. */
  fill_sections?: string[];
}
/** The writer's proposal only: the model's output is durable in history before anything is stored. */
export interface WriteReportPatchOutput {
  patches: ReportPatch[];
  usage: ModelUsage;
}

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
}
export interface VerifyReportOutput extends VerifyClaimsOutput {
  /** The citation check's result (its version is the one the claims were checked on). */
  citations?: VerifyCitationsOutput;
}

export interface ResearchActivities {
  decomposeQuery(input: DecomposeQueryInput): Promise<DecomposeQueryOutput>;
  /** The user's own documents only (LOCAL_DOCS_DIR); never the web. Empty without a corpus. */
  lookupLocalKnowledge(input: { query: string; maxResults: number }): Promise<{ hits: { title: string; url: string; snippet: string }[] }>;
  webSearch(input: WebSearchInput): Promise<WebSearchOutput>;
  fetchUrl(input: FetchUrlInput): Promise<FetchUrlOutput>;
  renderPage(input: RenderPageInput): Promise<RenderPageOutput>;
  analyzeSources(input: AnalyzeSourcesInput): Promise<AnalyzeSourcesOutput>;
  createReport(input: CreateReportInput): Promise<ReportVersion>;
  reopenReport(input: ReopenReportInput): Promise<ReportVersion>;
  writeReportPatch(input: WriteReportPatchInput): Promise<WriteReportPatchOutput>;
  applyReportPatch(input: ApplyReportPatchInput): Promise<ApplyReportPatchOutput>;
  verifyCitations(input: VerifyCitationsInput): Promise<VerifyCitationsOutput>;
  persistSession(input: PersistSessionInput): Promise<void>;
  recordDeliveries(input: RecordDeliveriesInput): Promise<void>;
  researchSettingsSchema(): Promise<Record<string, unknown>>;
  resolveProviders(input: ResolveProvidersInput): Promise<ProviderPlan>;
  critiqueFindings(input: CritiqueFindingsInput): Promise<CritiqueFindingsOutput>;
  refineGaps(input: RefineGapsInput): Promise<RefineGapsOutput>;
  reflectOnPhase(input: ReflectOnPhaseInput): Promise<ReflectOnPhaseOutput>;
  verifyClaims(input: VerifyReportInput): Promise<VerifyReportOutput>;
  scoreRelevance(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput>;
  deliverEmail(input: DeliverEmailInput): Promise<DeliveryOutcome>;
  deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryOutcome>;
  compareWithPreviousRun(input: CompareRunsInput): Promise<CompareRunsOutput>;
  writePanelAnswer(input: WritePanelAnswerInput): Promise<WritePanelAnswerOutput>;
  synthesizePanel(input: SynthesizePanelInput): Promise<SynthesizePanelOutput>;
  validateInput(input: ValidateInputInput): Promise<ValidateInputOutput>;
  improveInput(input: ImproveInputInput): Promise<ImproveInputOutput>;
}

export interface FindingForReview {
  id: string;
  content: string;
  confidence: FindingConfidence;
  source_ids: string[];
}
/** A source with what vetting made of it; tier and quality are shown to the critic as given. */
export interface VettedSourceRef extends SourceRef {
  tier?: string | number;
  quality?: string | number;
}
export interface CritiqueFindingsInput extends ModelChoice {
  query: string;
  research_brief: string;
  outline: string[];
  findings: FindingForReview[];
  sources: VettedSourceRef[];
  /** 1 for the first review of this research. */
  revision: number;
  max_revisions: number;
  /** What the user asked for while the research ran. */
  guidance?: string[];
}
export type CriticVerdict = 'PASS' | 'REVISE';
export interface Contradiction {
  /** Ids of the findings given to the critic; unknown ids are dropped. */
  finding_ids: string[];
  description: string;
}
export interface CritiqueFindingsOutput {
  verdict: CriticVerdict;
  feedback: string;
  /** What is missing or weak. */
  missing: string[];
  /** At most 5, deduplicated. */
  suggested_queries: string[];
  contradictions: Contradiction[];
  usage: ModelUsage;
}

export interface RefineGapsInput extends ModelChoice {
  query: string;
  research_brief: string;
  /** One line per finding so far. */
  findings_summary: string[];
  open_gaps: AnalyzedGap[];
  searched_queries: string[];
  iteration: number;
  max_iterations: number;
  critic_feedback?: string;
  /** The user's guidance, verbatim. */
  guidance?: string[];
  /** The supervisor's advice from its last reflection. */
  supervisor_guidance?: string[];
}
export interface RefineGapsOutput {
  /** Each with 1 to 3 queries that were not searched before and appear in no other gap. */
  gaps: AnalyzedGap[];
  rationale: string;
  usage: ModelUsage;
}

export interface PhaseGate {
  passed: boolean;
  failures: string[];
}
export interface ReflectOnPhaseInput extends ModelChoice {
  phase: GatedPhase;
  /** A few metrics of the phase (counts, ratios); shown to the model as JSON. */
  summary: Record<string, unknown>;
  gate: PhaseGate;
  guidance?: string[];
}
export interface ReflectOnPhaseOutput {
  /** At most 600 characters. */
  reflection: string;
  /** Only ever true when the gate failed. */
  retry: boolean;
  guidance_for_next_phase: string;
  /** The supervisor's overall judgement of the research so far, 0 (poor) to 1 (excellent). Absent in older results. */
  quality_score?: number;
  usage: ModelUsage;
}
