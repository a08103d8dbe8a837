// The query refiner: what the next research round searches for, from the gaps, the critic and the user.
import { z } from 'zod';
import type { ModelRoleSpec } from './role';

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
