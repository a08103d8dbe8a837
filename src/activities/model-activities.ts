// Model activities: planning, analysis and report patches. No search or fetch ability here.
import { allocate, phaseBudget, type BudgetSettings } from '../budget/allocate';
import { condense } from '../budget/condense';
import { countTokens } from '../budget/tokens';
import { analyzerPrompt, ANALYZER_SYSTEM } from '../prompts/analyzer';
import { PLANNER_SYSTEM, plannerPrompt } from '../prompts/planner';
import { WRITER_SYSTEM, writerPrompt } from '../prompts/writer';
import { Context } from '@temporalio/activity';
import type { Price } from '../providers/model/pricing';
import { costOf } from '../providers/model/pricing';
import type { ModelProvider } from '../providers/model/types';
import { applyPatches } from '../report/markdown';
import type { ArtifactStore } from '../stores/artifacts';
import type {
  AnalyzeSourcesInput,
  AnalyzeSourcesOutput,
  DecomposeQueryInput,
  DecomposeQueryOutput,
  ModelUsage,
  UpdateReportInput,
  UpdateReportOutput,
} from './contracts';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';
import { analysisSchema, planSchema, reportPatchSchema } from './schemas';

export interface ModelDeps {
  /** The provider behind "provider:model", with the environment variable that holds its key. */
  model: (ref: string) => { provider: ModelProvider; keyEnv?: string };
  /** The role's first configured model, for calls that name none (sessions before provider chains). */
  defaultModel: (role: string) => string;
  pricing: Record<string, Price>;
  artifacts: ArtifactStore;
  budget: BudgetSettings;
}

export function createModelActivities(deps: ModelDeps) {
  async function call<T>(role: string, requested: string | undefined, name: string, system: string, prompt: string, schema: import('zod').ZodType<T>) {
    let keyEnv: string | undefined;
    let ref = requested ?? role;
    try {
      ref = requested ?? deps.defaultModel(role);
      const chosen = deps.model(ref);
      keyEnv = chosen.keyEnv;
      const onProgress = () => Context.current().heartbeat();
      const res = await withHeartbeat((signal) => chosen.provider.generateObject({ role, name, system, prompt, schema, signal, onProgress }));
      const usage: ModelUsage = {
        role,
        model: res.model,
        ...res.usage,
        cost_usd: costOf(deps.pricing, res.model, res.usage) ?? 0,
        ...(res.repaired ? { repaired: true } : {}),
      };
      return { object: res.object, usage };
    } catch (err) {
      throw toFailure(err, `${role} model call (${ref})`, keyEnv);
    }
  }

  /** The model part of "provider:model", for token counting. */
  const modelNameOf = (ref: string) => ref.slice(ref.indexOf(':') + 1);

  return {
    async decomposeQuery(input: DecomposeQueryInput): Promise<DecomposeQueryOutput> {
      const { object, usage } = await call('planner', input.model, 'research_plan', PLANNER_SYSTEM, plannerPrompt(input), planSchema);
      const plan = {
        ...object,
        expanded_queries: dedupeBy(object.expanded_queries, (q) => q.query.toLowerCase().trim()),
        outline: dedupeBy(object.outline.map((t) => t.trim()), (t) => t.toLowerCase()).filter((t) => !/^(sources|notes)$/i.test(t)),
      };
      if (plan.outline.length === 0) plan.outline = ['Findings'];
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
      const { object, usage } = await call('analyzer', input.model, 'source_analysis', ANALYZER_SYSTEM, prompt, analysisSchema);
      const fidelity = Object.fromEntries(plan.allocations.map((a) => [a.id, { level: a.level, fidelity: a.fidelity, full_tokens: a.full_tokens, allocated_tokens: a.allocated_tokens }]));
      return { findings: object.findings, gaps: object.gaps, usage, fidelity, budget_tokens: budget };
    },

    async updateReport(input: UpdateReportInput): Promise<UpdateReportOutput> {
      const { object, usage } = await call('writer', input.model, 'report_patch', WRITER_SYSTEM, writerPrompt(input), reportPatchSchema);
      const result = applyPatches(input.report_markdown, input.outline, object.patches, input.max_update_chars);
      return { new_report_markdown: result.markdown, sections_patched: result.sections_patched, added_chars: result.added_chars, usage };
    },
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
