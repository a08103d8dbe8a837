// Model activities: planning, analysis and report patches. No search or fetch ability here.
import { allocate, phaseBudget } from '../budget/allocate';
import { condense } from '../budget/condense';
import { countTokens } from '../budget/tokens';
import { analyzerPrompt, ANALYZER_SYSTEM } from '../prompts/analyzer';
import { PLANNER_SYSTEM, plannerPrompt } from '../prompts/planner';
import { WRITER_SYSTEM, writerPrompt } from '../prompts/writer';
import { dedupeFindings } from '../report/dedupe';
import { applyPatches } from '../report/markdown';
import type { z } from 'zod';
import { reconcileLanguage } from '../prompts/language';
import type { Confidence, ResearchPlan } from '../workflows/types';
import type {
  AnalyzedFinding,
  AnalyzeSourcesInput,
  AnalyzeSourcesOutput,
  DecomposeQueryInput,
  DecomposeQueryOutput,
  FindingConfidence,
  UpdateReportInput,
  UpdateReportOutput,
} from './contracts';
import { createModelCall, type ModelDeps } from './model-call';
import { analysisSchema, planSchema, reportPatchSchema } from './schemas';

export type { ModelDeps } from './model-call';

export function createModelActivities(deps: ModelDeps) {
  const callModel = createModelCall(deps);

  /** The model part of "provider:model", for token counting. */
  const modelNameOf = (ref: string) => ref.slice(ref.indexOf(':') + 1);

  return {
    async decomposeQuery(input: DecomposeQueryInput): Promise<DecomposeQueryOutput> {
      const { object, usage } = await callModel(
        { role: 'planner', requested: input.model, name: 'research_plan', system: PLANNER_SYSTEM, prompt: plannerPrompt(input), stream: input.stream },
        planSchema,
      );
      const { context, ...rest } = object;
      const plan: ResearchPlan = {
        ...rest,
        context: {
          language: reconcileLanguage(context?.language, input.query),
          domain: context?.domain ?? 'general',
          mode: context?.mode ?? 'standard',
          intent_summary: context?.intent_summary ?? '',
          answer_style: context?.answer_style ?? [],
          ...(context?.time_scope ? { time_scope: context.time_scope } : {}),
          ...(context?.locale_scope ? { locale_scope: context.locale_scope } : {}),
        },
        expanded_queries: dedupeBy(object.expanded_queries, (q) => q.query.toLowerCase().trim()),
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
      const modelName = modelNameOf(input.model ?? deps.defaultModel('analyzer'));
      const texts = await Promise.all(input.sources.map(async (s) => (await deps.artifacts.getText(s.text_file_id)).slice(0, input.max_source_chars)));
      const budget = phaseBudget(deps.budget, 'analysis');
      const plan = allocate(
        input.sources.map((s, i) => ({ id: s.id, tokens: countTokens(texts[i], modelName), relevance: 1 - i / Math.max(1, input.sources.length) })),
        budget,
        deps.budget.protected_top_sources,
      );
      const sources = input.sources
        .map((s, i) => {
          const a = plan.allocations[i];
          const ratio = a.full_tokens ? a.allocated_tokens / a.full_tokens : 1;
          return { ...s, text: condense(texts[i], a.level, Math.floor(texts[i].length * ratio), s.title) };
        })
        .filter((s) => s.text);
      const prompt = analyzerPrompt({ ...input, sources });
      const { object, usage } = await callModel(
        { role: 'analyzer', requested: input.model, name: 'source_analysis', system: ANALYZER_SYSTEM, prompt, stream: input.stream },
        analysisSchema,
      );
      const fidelity = Object.fromEntries(plan.allocations.map((a) => [a.id, { level: a.level, fidelity: a.fidelity, full_tokens: a.full_tokens, allocated_tokens: a.allocated_tokens }]));
      const known = new Set(input.sources.map((x) => x.id));
      const rated = (object.source_quality ?? []).filter((r) => known.has(r.source_id));
      return {
        findings: object.findings.map(toAnalyzedFinding),
        gaps: object.gaps,
        usage,
        fidelity,
        budget_tokens: budget,
        ...(rated.length ? { source_quality: Object.fromEntries(rated.map((r) => [r.source_id, r.quality])) } : {}),
      };
    },

    async updateReport(input: UpdateReportInput): Promise<UpdateReportOutput> {
      // Content-addressed, so a retried patch stores the same version under the same id.
      const storedReport = async (request: UpdateReportInput, markdown: string) =>
        request.store_report ? { report_file_id: (await deps.artifacts.put(markdown, { name: 'report.md', kind: 'text', content_type: 'text/markdown; charset=utf-8' })).file_id } : {};
      // Findings that repeat each other or the report never reach the writer; their sources are kept.
      const unique = dedupeFindings(input.findings, input.report_markdown);
      if (unique.findings.length === 0) {
        const model = input.model ?? deps.defaultModel('writer');
        const usage = { role: 'writer', model, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
        return { new_report_markdown: unique.report, ...(await storedReport(input, unique.report)), sections_patched: [], added_chars: 0, usage, merged: unique.merged };
      }
      const { object, usage } = await callModel(
        {
          role: 'writer',
          requested: input.model,
          name: 'report_patch',
          system: WRITER_SYSTEM,
          prompt: writerPrompt({ ...input, report_markdown: unique.report, findings: unique.findings }),
          stream: input.stream,
        },
        reportPatchSchema,
      );
      const result = applyPatches(unique.report, input.outline, object.patches, input.max_update_chars, input.sources);
      const merged = [...unique.merged, ...result.merged];
      return {
        new_report_markdown: result.markdown,
        ...(await storedReport(input, result.markdown)),
        sections_patched: result.sections_patched,
        added_chars: result.added_chars,
        usage,
        ...(merged.length ? { merged } : {}),
      };
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

function dedupeBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
