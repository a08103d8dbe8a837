// The supervisor/specialist loop's model roles: the critic reviews findings, the refiner turns gaps
// into the next round's queries, the supervisor reflects after each phase. What the model answers
// is cleaned up here, deterministically, so the workflow can trust the shapes and limits.
import { normalizeQuery } from '../domain/text';
import { critic, criticPrompt, CRITIQUE_LIMITS } from '../roles/critic';
import { refiner, refinerPrompt, REFINEMENT_LIMITS } from '../roles/refiner';
import { MAX_REFLECTION_CHARS, supervisor, supervisorPrompt } from '../roles/supervisor';
import type {
  AnalyzedGap,
  Contradiction,
  CritiqueFindingsInput,
  CritiqueFindingsOutput,
  RefineGapsInput,
  RefineGapsOutput,
  ReflectOnPhaseInput,
  ReflectOnPhaseOutput,
} from './contracts';
import { confidenceWeight, createContentFitter, withSummaryUsage } from './fit-content';
import { createModelCall, type ModelDeps } from './model-call';

const MAX_CRITIC_QUERIES = CRITIQUE_LIMITS.suggested_queries;
const MAX_QUERIES_PER_GAP = REFINEMENT_LIMITS.queries.max;

export function createMindActivities(deps: ModelDeps) {
  const callModel = createModelCall(deps);
  const fitter = createContentFitter(deps);

  return {
    async critiqueFindings(input: CritiqueFindingsInput): Promise<CritiqueFindingsOutput> {
      // The critic works in the refinement budget (15 %): its findings are what grows.
      const fitted = await fitter.fit(
        input.findings.map((f) => ({ id: f.id, kind: 'finding', text: f.content, relevance: confidenceWeight(f.confidence) })),
        { phase: 'refinement', modelRef: input.model ?? deps.defaultModel('critic'), fixedPrompt: criticPrompt({ ...input, findings: input.findings.map((f) => ({ ...f, content: '' })) }) },
      );
      const findings = input.findings.map((f, i) => ({ ...f, content: fitted.texts[i] })).filter((f) => f.content);
      const call = await callModel(critic, { requested: input.model, prompt: criticPrompt({ ...input, findings }) });
      const { object } = call;
      const usage = withSummaryUsage(call.usage, fitted);
      const missing = object.missing.map((m) => m.trim()).filter(Boolean);
      const feedback = object.feedback.trim() || (object.verdict === 'REVISE' ? missing.join('; ') : '');
      return {
        verdict: object.verdict,
        feedback,
        missing,
        suggested_queries: uniqueQueries(object.suggested_queries).slice(0, MAX_CRITIC_QUERIES),
        contradictions: knownContradictions(object.contradictions, new Set(input.findings.map((f) => f.id))),
        usage,
      };
    },

    async refineGaps(input: RefineGapsInput): Promise<RefineGapsOutput> {
      // Refinement budget (15 %): the findings so far; gaps and searched queries always go whole.
      const fitted = await fitter.fit(
        input.findings_summary.map((line, i) => ({ id: `F${i + 1}`, kind: 'finding', text: line, relevance: 1 - i / Math.max(1, input.findings_summary.length) })),
        { phase: 'refinement', modelRef: input.model ?? deps.defaultModel('refiner'), fixedPrompt: refinerPrompt({ ...input, findings_summary: input.findings_summary.map(() => '') }) },
      );
      const call = await callModel(refiner, { requested: input.model, prompt: refinerPrompt({ ...input, findings_summary: fitted.texts.filter(Boolean) }) });
      const { object } = call;
      const usage = withSummaryUsage(call.usage, fitted);
      return { gaps: withUnsearchedQueries(object.gaps, input.searched_queries), rationale: object.rationale.trim(), usage };
    },

    async reflectOnPhase(input: ReflectOnPhaseInput): Promise<ReflectOnPhaseOutput> {
      // The think pause spends the budget of the phase it reflects on (gathering has none: refinement's).
      // Metrics and the gate are small; the user's guidance is what can grow.
      const guidance = input.guidance ?? [];
      const fitted = await fitter.fit(
        guidance.map((text, i) => ({ id: `G${i + 1}`, kind: 'guidance', text, recency: (i + 1) / guidance.length })),
        {
          phase: input.phase === 'gathering' ? 'refinement' : input.phase,
          modelRef: input.model ?? deps.defaultModel('supervisor'),
          fixedPrompt: supervisorPrompt({ ...input, guidance: guidance.map(() => '') }),
        },
      );
      const call = await callModel(supervisor, { requested: input.model, prompt: supervisorPrompt({ ...input, ...(input.guidance ? { guidance: fitted.texts.filter(Boolean) } : {}) }) });
      const { object } = call;
      const usage = withSummaryUsage(call.usage, fitted);
      return {
        reflection: clip(object.reflection.trim(), MAX_REFLECTION_CHARS),
        // A passed gate leaves nothing for a retry to fix, whatever the model thought.
        retry: object.retry && !input.gate.passed,
        guidance_for_next_phase: object.guidance_for_next_phase.trim(),
        ...(object.quality_score !== undefined ? { quality_score: Math.round(object.quality_score * 100) / 100 } : {}),
        usage,
      };
    },
  };
}

function uniqueQueries(queries: string[], seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const query of queries) {
    const key = normalizeQuery(query);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(query.trim());
  }
  return out;
}

/**
 * Gaps, most important first, keeping only queries never searched and not already given to an
 * earlier gap; a gap left without queries is dropped, since the next round could not act on it.
 */
export function withUnsearchedQueries(gaps: AnalyzedGap[], searchedQueries: string[]): AnalyzedGap[] {
  const seen = new Set(searchedQueries.map(normalizeQuery));
  return [...gaps]
    .sort((a, b) => a.priority - b.priority)
    .map((gap) => ({ ...gap, description: gap.description.trim(), suggested_queries: uniqueQueries(gap.suggested_queries, seen).slice(0, MAX_QUERIES_PER_GAP) }))
    .filter((gap) => gap.suggested_queries.length > 0);
}

function knownContradictions(contradictions: Contradiction[], findingIds: Set<string>): Contradiction[] {
  return contradictions
    .map((c) => ({ finding_ids: [...new Set(c.finding_ids.map((id) => id.trim()))].filter((id) => findingIds.has(id)), description: c.description.trim() }))
    .filter((c) => c.finding_ids.length > 0 && c.description);
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut}…`;
}
