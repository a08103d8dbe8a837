// The critic: reviews the merged findings against the plan before the report is finalised.
import { z } from 'zod';
import { confidenceWeight, withSummaryUsage } from '../context-fit/fit';
import { uniqueQueries } from '../domain/text';
import type { ModelUsage, SourceRef } from '../domain/types';
import type { FindingConfidence } from './analyzer';
import type { ModelChoice, ModelRoleSpec, RoleActivity } from './role';

export const CRITIQUE_LIMITS = { missing: 10, suggested_queries: 5, contradictions: 10 } as const;

export const critiqueSchema = z.object({
  verdict: z.enum(['PASS', 'REVISE']),
  feedback: z.string(),
  missing: z.array(z.string().min(1)).max(CRITIQUE_LIMITS.missing),
  suggested_queries: z.array(z.string().min(1)).max(CRITIQUE_LIMITS.suggested_queries),
  contradictions: z.array(z.object({ finding_ids: z.array(z.string().min(1)).min(1), description: z.string().min(1) })).max(CRITIQUE_LIMITS.contradictions),
});

const CRITIC_SYSTEM = `You are the critic of a deep-research assistant.
You review the merged findings of a research run against its plan (question, brief, outline) and
the vetting of its sources, before the report is finalised.
- verdict: "REVISE" only when a gap or weakness matters for answering the question: an outline
  section without support, a key claim resting on a single weak or low-tier source, or an
  unresolved contradiction. Minor polish is not a reason. Otherwise "PASS".
- feedback: 1 to 4 sentences for the researchers; with REVISE, say what the next round must establish.
- missing: what is missing or weak, one short item each; empty when nothing matters.
- suggested_queries: up to ${CRITIQUE_LIMITS.suggested_queries} web search queries that would close what is missing; empty with PASS.
- contradictions: findings whose sources disagree, each with the ids of the findings involved
  (e.g. "F2", "F5") and what they disagree on. Only ids of the findings given.
Weigh sources by their tier and quality when given: a lower tier is weaker evidence.
Answer with JSON only.`;

export const critic: ModelRoleSpec<z.infer<typeof critiqueSchema>> = { role: 'critic', name: 'critique', system: CRITIC_SYSTEM, schema: critiqueSchema };

/** A source with what vetting made of it (tier and quality shown to the critic as given). */
export interface VettedSourceRef extends SourceRef {
  tier?: string | number;
  quality?: string | number;
}

/** What the critic's prompt is built from (the critiqueFindings activity's input). */
export interface CriticPromptInput {
  query: string;
  research_brief: string;
  outline: string[];
  findings: { id: string; content: string; confidence: string; source_ids: string[] }[];
  sources: VettedSourceRef[];
  /** 1 for the first review of this research. */
  revision: number;
  max_revisions: number;
  /** What the user asked for while the research ran. */
  guidance?: string[];
}

export function criticPrompt(input: CriticPromptInput): string {
  const findings = input.findings.length
    ? input.findings.map((f) => `- ${f.id} (${f.confidence}) ${f.content} [${f.source_ids.join(', ')}]`).join('\n')
    : '(no findings)';
  const sources = input.sources.length ? input.sources.map(describeSource).join('\n') : '(no sources)';
  const parts = [
    `Research question:\n${input.query}`,
    `Brief:\n${input.research_brief}`,
    `Report outline: ${input.outline.join(' | ')}`,
    `Review ${input.revision} of at most ${input.max_revisions}.${input.revision >= input.max_revisions ? ' This is the last review: REVISE only for a serious flaw.' : ''}`,
    `Findings:\n${findings}`,
    `Sources:\n${sources}`,
  ];
  if (input.guidance?.length) parts.push(`The user's guidance:\n${input.guidance.map((g) => `- ${g}`).join('\n')}`);
  return parts.join('\n\n');
}

function describeSource(s: VettedSourceRef): string {
  const vetting = [s.tier === undefined ? '' : `tier ${s.tier}`, s.quality === undefined ? '' : `quality ${s.quality}`].filter(Boolean).join(', ');
  return `- [${s.id}] ${s.title} — ${s.url}${vetting ? ` (${vetting})` : ''}`;
}

export interface FindingForReview {
  id: string;
  content: string;
  confidence: FindingConfidence;
  source_ids: string[];
}
/** The critic's prompt input with the findings as the workflow has them (critiqueFindings; as histories record it). */
export interface CritiqueFindingsInput extends ModelChoice, CriticPromptInput {
  findings: FindingForReview[];
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
  /** At most CRITIQUE_LIMITS.suggested_queries, deduplicated. */
  suggested_queries: string[];
  contradictions: Contradiction[];
  usage: ModelUsage;
}

/** The critic's review of the findings so far: PASS, or REVISE with what is missing and what to search. */
export const critiqueFindings: RoleActivity<CritiqueFindingsInput, CritiqueFindingsOutput> = async (input, tools) => {
  // The critic works in the refinement budget (15 %): its findings are what grows.
  const fitted = await tools.fit(
    input.findings.map((f) => ({ id: f.id, kind: 'finding', text: f.content, relevance: confidenceWeight(f.confidence) })),
    { phase: 'refinement', modelRef: input.model ?? tools.defaultModel('critic'), fixedPrompt: criticPrompt({ ...input, findings: input.findings.map((f) => ({ ...f, content: '' })) }) },
  );
  const findings = input.findings.map((f, i) => ({ ...f, content: fitted.texts[i] })).filter((f) => f.content);
  const { object, usage } = await tools.call(critic, { requested: input.model, prompt: criticPrompt({ ...input, findings }) });
  const missing = object.missing.map((m) => m.trim()).filter(Boolean);
  const feedback = object.feedback.trim() || (object.verdict === 'REVISE' ? missing.join('; ') : '');
  return {
    verdict: object.verdict,
    feedback,
    missing,
    suggested_queries: uniqueQueries(object.suggested_queries).slice(0, CRITIQUE_LIMITS.suggested_queries),
    contradictions: knownContradictions(object.contradictions, new Set(input.findings.map((f) => f.id))),
    usage: withSummaryUsage(usage, fitted),
  };
};

function knownContradictions(contradictions: Contradiction[], findingIds: Set<string>): Contradiction[] {
  return contradictions
    .map((c) => ({ finding_ids: [...new Set(c.finding_ids.map((id) => id.trim()))].filter((id) => findingIds.has(id)), description: c.description.trim() }))
    .filter((c) => c.finding_ids.length > 0 && c.description);
}
