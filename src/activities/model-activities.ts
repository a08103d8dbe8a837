// Model activities: planning, analysis and report patches. No search or fetch ability here.
import { analyzer, analyzerPrompt, type analysisSchema } from '../roles/analyzer';
import { PLAN_LIMITS, planner, plannerPrompt, unansweredQuestions } from '../roles/planner';
import { writer, WRITER_PATCHES_ASKED, writerPrompt } from '../roles/writer';
import { dedupeFindings } from '../report/dedupe';
import { classifySource } from '../research/vetting';
import type { z } from 'zod';
import { reconcileLanguage } from './prompts/language';
import { normalizeQuery } from '../domain/text';
import type { Confidence, QuestionTranslation, ResearchPlan } from '../domain/types';
import type {
  AnalyzedFinding,
  AnalyzeSourcesInput,
  AnalyzeSourcesOutput,
  DecomposeQueryInput,
  DecomposeQueryOutput,
  FindingConfidence,
  WriteReportPatchInput,
  WriteReportPatchOutput,
} from './contracts';
import { confidenceWeight, createContentFitter, withSummaryUsage } from './fit-content';
import { createModelCall, type ModelDeps } from './model-call';

export type { ModelDeps } from './model-call';

export function createModelActivities(deps: ModelDeps) {
  const callModel = createModelCall(deps);
  const fitter = createContentFitter(deps);

  return {
    async decomposeQuery(input: DecomposeQueryInput): Promise<DecomposeQueryOutput> {
      // Planning budget (10 %): the user's documents and answers are what can grow.
      const docs = input.known_documents ?? [];
      const fitted = await fitter.fit(
        [
          ...docs.map((d, i) => ({ id: `doc-${i + 1}`, kind: 'document', text: d.snippet, title: d.title, relevance: 0.8 - (0.3 * i) / Math.max(1, docs.length) })),
          ...input.clarifications.map((c, i) => ({ id: `answer-${i + 1}`, kind: 'clarification', text: c.answer, relevance: 1, protected: true })),
        ],
        { phase: 'planning', modelRef: input.model ?? deps.defaultModel('planner'), fixedPrompt: plannerPrompt({ ...input, known_documents: docs.map((d) => ({ ...d, snippet: '' })), clarifications: input.clarifications.map((c) => ({ ...c, answer: '' })) }) },
      );
      const known_documents = docs.map((d, i) => ({ ...d, snippet: fitted.texts[i] })).filter((d) => d.snippet);
      const clarifications = input.clarifications.map((c, i) => ({ ...c, answer: fitted.texts[docs.length + i] }));
      const call = await callModel(planner, { requested: input.model, prompt: plannerPrompt({ ...input, known_documents, clarifications }), stream: input.stream });
      const { object } = call;
      const usage = withSummaryUsage(call.usage, fitted);
      const { context, translations, ...rest } = object;
      const plan: ResearchPlan = {
        ...rest,
        // A question the user already answered is never asked twice, however the model rewords it;
        // no more are asked than the planner was told it may.
        clarifying_questions: unansweredQuestions(rest.clarifying_questions, input.clarifications).slice(0, PLAN_LIMITS.clarifying_questions.asked.max),
        context: {
          language: reconcileLanguage(context?.language, input.query),
          domain: context?.domain ?? 'general',
          mode: context?.mode ?? 'standard',
          intent_summary: context?.intent_summary ?? '',
          answer_style: context?.answer_style ?? [],
          ...(context?.time_scope ? { time_scope: context.time_scope } : {}),
          ...(context?.locale_scope ? { locale_scope: context.locale_scope } : {}),
        },
        ...translationsOf(translations, context?.language, input.query),
        expanded_queries: dedupeBy(object.expanded_queries, (q) => normalizeQuery(q.query)),
        outline: dedupeBy(object.outline.map((t) => t.trim()), (t) => t.toLowerCase()).filter((t) => !/^(sources|notes)$/i.test(t)),
      };
      if (plan.outline.length === 0) plan.outline = ['Findings'];
      const max = input.max_sub_queries;
      if (max !== undefined && plan.expanded_queries.length > max) {
        const kept = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority).slice(0, max);
        plan.assumptions = [...plan.assumptions, `The planner proposed ${plan.expanded_queries.length} sub-questions; the ${max} most important were kept (max_sub_queries).`];
        plan.expanded_queries = plan.expanded_queries.filter((q) => kept.includes(q));
      }
      return { plan, usage };
    },

    async analyzeSources(input: AnalyzeSourcesInput): Promise<AnalyzeSourcesOutput> {
      const texts = await Promise.all(input.sources.map(async (s) => (await deps.artifacts.getText(s.text_file_id)).slice(0, input.max_source_chars)));
      // Analysis budget (40 %): the sources, by search rank (relevance) and publisher credibility (quality).
      const fitted = await fitter.fit(
        input.sources.map((s, i) => ({
          id: s.id,
          kind: 'source',
          text: texts[i],
          title: s.title,
          relevance: 1 - i / Math.max(1, input.sources.length),
          quality: classifySource(s.url).score,
          metadata: { url: s.url },
        })),
        { phase: 'analysis', modelRef: input.model ?? deps.defaultModel('analyzer'), fixedPrompt: analyzerPrompt({ ...input, sources: input.sources.map((s) => ({ ...s, text: '' })) }) },
      );
      const sources = input.sources.map((s, i) => ({ ...s, text: fitted.texts[i] })).filter((s) => s.text);
      const prompt = analyzerPrompt({ ...input, sources });
      const call = await callModel(analyzer, { requested: input.model, prompt, stream: input.stream });
      const { object } = call;
      const usage = withSummaryUsage(call.usage, fitted);
      const fidelity = fitted.fidelity;
      const budget = fitted.budget_tokens;
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
        usage,
        fidelity,
        budget_tokens: budget,
        ...(rated.length ? { source_quality: Object.fromEntries(rated.map((r) => [r.source_id, r.quality])) } : {}),
      };
    },

    /**
     * The writer's proposal for the new findings. It stores nothing: the proposal is durable in
     * history the moment it returns, and applying it is a store step of its own.
     */
    async writeReportPatch(input: WriteReportPatchInput): Promise<WriteReportPatchOutput> {
      const modelRef = input.model ?? deps.defaultModel('writer');
      const report = await deps.artifacts.getText(input.report_file_id);
      // Findings that repeat each other or the report never reach the writer; their sources are kept.
      const unique = dedupeFindings(input.findings, report);
      if (unique.findings.length === 0) return { patches: [], usage: { role: 'writer', model: modelRef, input_tokens: 0, output_tokens: 0, cost_usd: 0 } };
      // Synthesis budget (35 %): the new findings first, then the report so far (context only:
      // patches are applied to the full report).
      const findings = unique.findings;
      const fitted = await fitter.fit(
        [
          // Findings reach the writer at least as headlines: a dropped one would never be written.
          ...findings.map((f) => ({ id: f.id, kind: 'finding', text: f.content, relevance: confidenceWeight(f.confidence), protected: true })),
          { id: 'report', kind: 'report', text: unique.report, relevance: 0.2, protected: true },
        ],
        { phase: 'synthesis', modelRef, fixedPrompt: writerPrompt({ ...input, report_markdown: '', findings: findings.map((f) => ({ ...f, content: '' })) }) },
      );
      const shown = findings.map((f, i) => ({ ...f, content: fitted.texts[i] })).filter((f) => f.content);
      const call = await callModel(writer, { requested: input.model, prompt: writerPrompt({ ...input, report_markdown: fitted.texts[findings.length], findings: shown }), stream: input.stream });
      // Bounded before it enters history (applying cuts them to max_update_chars anyway): each
      // patch, and all of them together to what the patches asked for could hold, however many came.
      const cap = Math.max(2_000, input.max_update_chars * 4);
      let room = cap * WRITER_PATCHES_ASKED;
      const patches: WriteReportPatchOutput['patches'] = [];
      for (const p of call.object.patches) {
        const markdown = p.markdown.slice(0, cap);
        if ((room -= markdown.length) < 0) break;
        patches.push({ section: p.section.slice(0, 300), markdown });
      }
      return { patches, usage: withSummaryUsage(call.usage, fitted) };
    },
  };
}

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

/** The question's renderings in its sources' other languages: each language once, none that only repeats the question. */
function translationsOf(translations: QuestionTranslation[], language: string | undefined, question: string): Pick<ResearchPlan, 'translations'> {
  const own = reconcileLanguage(language, question).toLowerCase().split('-')[0];
  const kept = dedupeBy(
    translations.map((t) => ({ language: t.language.trim(), question: t.question.trim() })).filter((t) => t.question && t.language.toLowerCase().split('-')[0] !== own && normalizeQuery(t.question) !== normalizeQuery(question)),
    (t) => t.language.toLowerCase(),
  ).slice(0, MAX_TRANSLATIONS);
  return kept.length ? { translations: kept } : {};
}

/** Languages besides the question's own that pages are judged in. */
const MAX_TRANSLATIONS = 3;

function dedupeBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
