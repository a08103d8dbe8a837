// The query refiner: what the next research round searches for, from the gaps, the critic and the user.
import { z } from 'zod';
import { withSummaryUsage } from '../context-fit/fit';
import { normalizeQuery, uniqueQueries } from '../domain/text';
import type { ModelUsage } from '../domain/types';
import type { AnalyzedGap } from './analyzer';
import type { ModelChoice, ModelRoleSpec, RoleActivity } from './role';

export const REFINEMENT_LIMITS = { gaps: 8, queries: { min: 1, max: 3 }, priority: { min: 1, max: 10 } } as const;

const { queries, priority } = REFINEMENT_LIMITS;

export const gapRefinementSchema = z.object({
  gaps: z
    .array(
      z.object({
        description: z.string().min(1),
        suggested_queries: z.array(z.string().min(1)).min(queries.min).max(queries.max),
        priority: z.number().int().min(priority.min).max(priority.max),
      }),
    )
    .max(REFINEMENT_LIMITS.gaps),
  rationale: z.string(),
});

const REFINER_SYSTEM = `You are the query refiner of a deep-research assistant.
From the open gaps, the critic's feedback, the user's guidance and the supervisor's advice, decide
what the next research round searches for.
- gaps: the gaps still worth closing, most important first, merged where they overlap. Each has a
  description, ${queries.min} to ${queries.max} new web search queries and a priority (${priority.min} = most important).
- Queries must differ from every query already searched: a new angle, a more specific term, a
  primary source, a date range or a named organisation; not a rewording.
- Follow the user's guidance and the critic's feedback where they say what matters.
- No gaps when the question is answered well enough.
- rationale: one or two sentences on why these queries.
Answer with JSON only.`;

export const refiner: ModelRoleSpec<z.infer<typeof gapRefinementSchema>> = { role: 'refiner', name: 'gap_refinement', system: REFINER_SYSTEM, schema: gapRefinementSchema };

/** What the refiner's prompt is built from (the refineGaps activity's input). */
export interface RefinerPromptInput {
  query: string;
  research_brief: string;
  findings_summary: string[];
  open_gaps: { description: string; suggested_queries: string[]; priority: number }[];
  searched_queries: string[];
  iteration: number;
  max_iterations: number;
  critic_feedback?: string;
  guidance?: string[];
  supervisor_guidance?: string[];
}

export function refinerPrompt(input: RefinerPromptInput): string {
  const gaps = input.open_gaps.length
    ? input.open_gaps.map((g) => `- (priority ${g.priority}) ${g.description}${g.suggested_queries.length ? ` — suggested: ${g.suggested_queries.join('; ')}` : ''}`).join('\n')
    : '(none)';
  const parts = [
    `Research question:\n${input.query}`,
    `Brief:\n${input.research_brief}`,
    `Next round: iteration ${input.iteration} of ${input.max_iterations}.`,
    `Findings so far:\n${bulletsOr(input.findings_summary, '(none yet)')}`,
    `Open gaps:\n${gaps}`,
    `Already searched (do not repeat):\n${bulletsOr(input.searched_queries, '(nothing yet)')}`,
  ];
  if (input.critic_feedback?.trim()) parts.push(`Critic's feedback:\n${input.critic_feedback.trim()}`);
  if (input.guidance?.length) parts.push(`The user's guidance:\n${bulletsOr(input.guidance, '')}`);
  if (input.supervisor_guidance?.length) parts.push(`The supervisor's advice:\n${bulletsOr(input.supervisor_guidance, '')}`);
  return parts.join('\n\n');
}

const bulletsOr = (items: string[], empty: string) => (items.length ? items.map((i) => `- ${i}`).join('\n') : empty);

/** The refiner's prompt input with the gaps as the analyst gave them (refineGaps; as histories record it). */
export interface RefineGapsInput extends ModelChoice, RefinerPromptInput {
  open_gaps: AnalyzedGap[];
}
export interface RefineGapsOutput {
  /** Each with 1 to 3 queries that were not searched before and appear in no other gap. */
  gaps: AnalyzedGap[];
  rationale: string;
  usage: ModelUsage;
}

/** The next round's gaps, each with queries never searched before. */
export const refineGaps: RoleActivity<RefineGapsInput, RefineGapsOutput> = async (input, tools) => {
  // Refinement budget (15 %): the findings so far; gaps and searched queries always go whole.
  const fitted = await tools.fit(
    input.findings_summary.map((line, i) => ({ id: `F${i + 1}`, kind: 'finding', text: line, relevance: 1 - i / Math.max(1, input.findings_summary.length) })),
    { phase: 'refinement', modelRef: input.model ?? tools.defaultModel('refiner'), fixedPrompt: refinerPrompt({ ...input, findings_summary: input.findings_summary.map(() => '') }) },
  );
  const { object, usage } = await tools.call(refiner, { requested: input.model, prompt: refinerPrompt({ ...input, findings_summary: fitted.texts.filter(Boolean) }) });
  return { gaps: withUnsearchedQueries(object.gaps, input.searched_queries), rationale: object.rationale.trim(), usage: withSummaryUsage(usage, fitted) };
};

/**
 * Gaps, most important first, keeping only queries never searched and not already given to an
 * earlier gap; a gap left without queries is dropped, since the next round could not act on it.
 */
export function withUnsearchedQueries(gaps: AnalyzedGap[], searchedQueries: string[]): AnalyzedGap[] {
  const seen = new Set(searchedQueries.map(normalizeQuery));
  return [...gaps]
    .sort((a, b) => a.priority - b.priority)
    .map((gap) => ({ ...gap, description: gap.description.trim(), suggested_queries: uniqueQueries(gap.suggested_queries, seen).slice(0, REFINEMENT_LIMITS.queries.max) }))
    .filter((gap) => gap.suggested_queries.length > 0);
}
