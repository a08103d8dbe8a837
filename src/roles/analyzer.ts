// The analyst: findings from the sources, the gaps left, the sources that are off the question and
// how good each is. ANALYSIS_LIMITS bound the answer; the prompt states them from there.
import { z } from 'zod';
import { withSummaryUsage } from '../context-fit/fit';
import type { Confidence, ModelUsage, SourceFidelity } from '../domain/types';
import { classifySource } from '../research/vetting';
import { askedItems, type ModelChoice, type ModelRoleSpec, type RoleActivity } from './role';

export const FINDING_CONFIDENCES = ['low', 'medium', 'high', 'confirmed', 'speculation'] as const;

/** What the analyst is asked for; `accepted` is what still parses. */
export const ANALYSIS_LIMITS = {
  findings: 40,
  gaps: 10,
  gap_queries: { asked: { min: 1, max: 3 }, accepted: 5 },
  priority: { min: 1, max: 10 },
  rated_sources: 50,
} as const;

const { gap_queries: gapQueries, priority } = ANALYSIS_LIMITS;

export const analysisSchema = z.object({
  findings: z
    .array(
      z.object({
        content: z.string().min(1),
        confidence: z.enum(FINDING_CONFIDENCES),
        source_ids: z.array(z.string()),
        category: z.string().nullable().catch(null),
      }),
    )
    .max(ANALYSIS_LIMITS.findings),
  gaps: z
    .array(
      z.object({
        description: z.string().min(1),
        suggested_queries: z.array(z.string().min(1)).max(gapQueries.accepted).meta(askedItems(gapQueries.asked)),
        priority: z.number().int().min(priority.min).max(priority.max),
      }),
    )
    .max(ANALYSIS_LIMITS.gaps),
  // Added later: the sources the analyst found do not address the question (never cited). Answers without it stay valid.
  not_addressing: z
    .array(z.object({ source_id: z.string(), reason: z.string() }))
    .max(ANALYSIS_LIMITS.rated_sources)
    .nullable()
    .catch(null),
  // Nullable rather than optional: strict structured outputs require every key; older answers lack it.
  source_quality: z
    .array(z.object({ source_id: z.string(), quality: z.enum(['low', 'medium', 'high']) }))
    .max(ANALYSIS_LIMITS.rated_sources)
    .nullable()
    .catch(null),
});

const ANALYZER_SYSTEM = `You are the research analyst of a deep-research assistant.
Read the sources and extract findings that answer the research question.
- Each finding is one or two factual sentences, with a confidence and the ids of the sources that support it (e.g. "S3"). Cite only ids of the sources given.
- Cover every source that bears on the question: at least one finding from each of them.
- Confidence: "confirmed" when independent credible sources agree, "high", "medium" or "low" for one source's claim by how credible and specific it is, "speculation" for forecasts, opinions and claims no source backs with evidence.
- Category: a short lowercase topic label for the finding (e.g. "costs", "policy"); null when none fits.
- Not addressing: a source that is about something else (it only shares some words with the question) goes in not_addressing, with a one-sentence reason; take no finding from it. Empty when every source bears on the question.
- Source quality: rate each source low, medium or high by its authority, relevance and recency: its evidence (primary data, methods, named authors and dates rate higher; marketing, anonymous or thin pages lower) and when it was published (its published date; "unknown" when it states none).
- Recency: for figures and states of affairs that change, prefer the most recent source and say when it was true ("as of 2023, …"); an older source's figure is stated as of its date, never as current.
- Gaps: what the question still needs that these sources do not answer, each description written as a question (ending with "?", in the language of the research question, never a sentence copied from a source, no source ids), with ${gapQueries.asked.min} to ${gapQueries.asked.max} suggested web search queries and a priority (${priority.min} = most important). No gaps when the question is answered.
Answer with JSON only.`;

export const analyzer: ModelRoleSpec<z.infer<typeof analysisSchema>> = { role: 'analyzer', name: 'source_analysis', system: ANALYZER_SYSTEM, schema: analysisSchema };

export interface AnalyzerSourceText {
  id: string;
  title: string;
  url: string;
  text: string;
  /** Only the page's opening was readable (paywall): told to the analyst, who must not read more into it. */
  teaser?: boolean;
  /** When the source says it was published (ISO 8601), for weighing recency. */
  published?: string;
}

/** ' published="2019-11-19"', or ' published="unknown"' for a source that states no date. */
const dateAttribute = (published: string | undefined) => ` published="${published && /^\d{4}-\d{2}-\d{2}/.test(published) ? published.slice(0, 10) : 'unknown'}"`;

export function analyzerPrompt(input: {
  query: string;
  research_brief: string;
  outline: string[];
  iteration: number;
  max_iterations: number;
  known_findings: string[];
  sources: AnalyzerSourceText[];
  research_feedback?: string[];
}): string {
  const known = input.known_findings.length ? input.known_findings.map((f) => `- ${f}`).join('\n') : '(none yet)';
  const sources = input.sources
    .map((s) => `<source id="${s.id}" url="${s.url}" title="${s.title.replace(/"/g, "'")}"${dateAttribute(s.published)}${s.teaser ? ' only-opening="true"' : ''}>\n${s.text}\n</source>`)
    .join('\n\n');
  const teasers = input.sources.filter((s) => s.teaser).map((s) => s.id);
  return [
    `Research question:\n${input.query}`,
    `Brief:\n${input.research_brief}`,
    `Report outline: ${input.outline.join(' | ')}`,
    `Iteration ${input.iteration} of ${input.max_iterations}.`,
    `Findings so far:\n${known}`,
    ...(input.research_feedback?.length ? [`Feedback this round must address:\n${input.research_feedback.map((f) => `- ${f}`).join('\n')}`] : []),
    ...(teasers.length ? [`${teasers.join(', ')}: only the opening of the article was readable (paywall); take findings only from what that opening says, and never conclude that the article does not say something.`] : []),
    `Sources:\n${sources}`,
  ].join('\n\n');
}

export interface SourceForAnalysis {
  id: string;
  title: string;
  url: string;
  text_file_id: string;
  /** Only the page's opening was readable (paywall). */
  teaser?: boolean;
  /** When the source says it was published (ISO 8601). */
  published?: string;
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

/** Findings, gaps and source ratings from one batch of sources, read within the analysis budget. */
export const analyzeSources: RoleActivity<AnalyzeSourcesInput, AnalyzeSourcesOutput> = async (input, tools) => {
  const texts = await Promise.all(input.sources.map(async (s) => (await tools.text(s.text_file_id)).slice(0, input.max_source_chars)));
  // Analysis budget (40 %): the sources, by search rank (relevance) and publisher credibility (quality).
  const fitted = await tools.fit(
    input.sources.map((s, i) => ({
      id: s.id,
      kind: 'source',
      text: texts[i],
      title: s.title,
      relevance: 1 - i / Math.max(1, input.sources.length),
      quality: classifySource(s.url).score,
      metadata: { url: s.url },
    })),
    { phase: 'analysis', modelRef: input.model ?? tools.defaultModel('analyzer'), fixedPrompt: analyzerPrompt({ ...input, sources: input.sources.map((s) => ({ ...s, text: '' })) }) },
  );
  const sources = input.sources.map((s, i) => ({ ...s, text: fitted.texts[i] })).filter((s) => s.text);
  const call = await tools.call(analyzer, { requested: input.model, prompt: analyzerPrompt({ ...input, sources }), stream: input.stream });
  const { object } = call;
  const known = new Set(input.sources.map((x) => x.id));
  const rated = (object.source_quality ?? []).filter((r) => known.has(r.source_id));
  // A source the analyst found off the question is never evidence: no finding keeps it.
  const offQuestion = new Map((object.not_addressing ?? []).filter((r) => known.has(r.source_id)).map((r) => [r.source_id, r.reason.trim().slice(0, 300) || 'does not address the question']));
  const findings = object.findings
    .map(toAnalyzedFinding)
    .map((f) => ({ ...f, source_ids: f.source_ids.filter((id) => !offQuestion.has(id)) }))
    .filter((f, i) => f.source_ids.length > 0 || object.findings[i].source_ids.length === 0);
  return {
    findings,
    ...(offQuestion.size ? { not_addressing: Object.fromEntries(offQuestion) } : {}),
    gaps: object.gaps,
    usage: withSummaryUsage(call.usage, fitted),
    fidelity: fitted.fidelity,
    budget_tokens: fitted.budget_tokens,
    ...(rated.length ? { source_quality: Object.fromEntries(rated.map((r) => [r.source_id, r.quality])) } : {}),
  };
};

type ModelFinding = z.infer<typeof analysisSchema>['findings'][number];

const THREE_LEVEL: Record<FindingConfidence, Confidence> = { low: 'low', medium: 'medium', high: 'high', confirmed: 'high', speculation: 'low' };

function toAnalyzedFinding({ content, confidence, source_ids, category }: ModelFinding): AnalyzedFinding {
  return {
    content,
    confidence: THREE_LEVEL[confidence],
    source_ids,
    ...(THREE_LEVEL[confidence] !== confidence ? { graded_confidence: confidence } : {}),
    ...(category?.trim() ? { category: category.trim() } : {}),
  };
}
