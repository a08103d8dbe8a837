// The supervisor: a pause after each phase to reflect on it, from its metrics and its quality gate.
import { z } from 'zod';
import { withSummaryUsage } from '../context-fit/fit';
import type { GatedPhase } from '../domain/names';
import type { ModelUsage } from '../domain/types';
import type { ModelChoice, ModelRoleSpec, RoleActivity } from './role';

/** A reflection is cut to this many characters (in the activity: a long one is not worth a repair call). */
export const MAX_REFLECTION_CHARS = 600;

export const phaseReflectionSchema = z.object({
  reflection: z.string().min(1).meta({ maxLength: MAX_REFLECTION_CHARS }),
  retry: z.boolean(),
  guidance_for_next_phase: z.string(),
  // Optional so a model that leaves it out costs no repair call; the harness and real models give it.
  quality_score: z.number().min(0).max(1).optional(),
});

const SUPERVISOR_SYSTEM = `You are the supervisor of a deep-research assistant. After each phase
you pause to reflect on how it went, from its metrics and its quality gate.
- reflection: what went well or badly, at most ${MAX_REFLECTION_CHARS} characters.
- retry: true only when the gate failed and running the phase again could fix it (for example more
  or different searches); false when the gate passed, or when a retry would only repeat the failure.
- guidance_for_next_phase: one or two concrete sentences for the next phase (or the retry).
- quality_score: your judgement of the research so far, from 0 (unusable) to 1 (complete, well sourced).
Answer with JSON only.`;

export const supervisor: ModelRoleSpec<z.infer<typeof phaseReflectionSchema>> = { role: 'supervisor', name: 'phase_reflection', system: SUPERVISOR_SYSTEM, schema: phaseReflectionSchema };

/** The question the supervisor answers about each phase. */
export const PHASE_QUESTIONS: Record<GatedPhase, string> = {
  planning: 'Do the queries and the outline cover the whole question, without drifting from it?',
  gathering: 'Are the sources diverse and credible enough to answer the question?',
  analysis: 'Are the findings specific, supported by the sources, and do they cover the outline?',
  synthesis: 'Does the report answer the question, with every claim cited and no section left thin?',
  refinement: 'Will the next round close the gaps that matter, rather than repeat earlier searches?',
};

export function supervisorPrompt(input: Omit<ReflectOnPhaseInput, keyof ModelChoice>): string {
  const gate = input.gate.passed ? 'passed' : `failed:\n${input.gate.failures.map((f) => `- ${f}`).join('\n') || '- (no reason given)'}`;
  const parts = [
    `Phase: ${input.phase}`,
    `Question for this phase: ${PHASE_QUESTIONS[input.phase]}`,
    `Metrics:\n${JSON.stringify(input.summary, null, 2)}`,
    `Quality gate ${gate}`,
  ];
  if (input.guidance?.length) parts.push(`The user's guidance:\n${input.guidance.map((g) => `- ${g}`).join('\n')}`);
  return parts.join('\n\n');
}

export interface PhaseGate {
  passed: boolean;
  failures: string[];
}
/** reflectOnPhase's input (as histories record it). */
export interface ReflectOnPhaseInput extends ModelChoice {
  phase: GatedPhase;
  /** A few metrics of the phase (counts, ratios); shown to the model as JSON. */
  summary: Record<string, unknown>;
  gate: PhaseGate;
  guidance?: string[];
}
export interface ReflectOnPhaseOutput {
  /** At most MAX_REFLECTION_CHARS. */
  reflection: string;
  /** Only ever true when the gate failed. */
  retry: boolean;
  guidance_for_next_phase: string;
  /** The supervisor's overall judgement of the research so far, 0 (poor) to 1 (excellent). Absent in older results. */
  quality_score?: number;
  usage: ModelUsage;
}

/** The supervisor's think pause after a phase: what went well, whether to retry it, advice for the next. */
export const reflectOnPhase: RoleActivity<ReflectOnPhaseInput, ReflectOnPhaseOutput> = async (input, tools) => {
  // The think pause spends the budget of the phase it reflects on (gathering has none: refinement's).
  // Metrics and the gate are small; the user's guidance is what can grow.
  const guidance = input.guidance ?? [];
  const fitted = await tools.fit(
    guidance.map((text, i) => ({ id: `G${i + 1}`, kind: 'guidance', text, recency: (i + 1) / guidance.length })),
    { phase: input.phase === 'gathering' ? 'refinement' : input.phase, modelRef: input.model ?? tools.defaultModel('supervisor'), fixedPrompt: supervisorPrompt({ ...input, guidance: guidance.map(() => '') }) },
  );
  const { object, usage } = await tools.call(supervisor, { requested: input.model, prompt: supervisorPrompt({ ...input, ...(input.guidance ? { guidance: fitted.texts.filter(Boolean) } : {}) }) });
  return {
    reflection: clip(object.reflection.trim(), MAX_REFLECTION_CHARS),
    // A passed gate leaves nothing for a retry to fix, whatever the model thought.
    retry: object.retry && !input.gate.passed,
    guidance_for_next_phase: object.guidance_for_next_phase.trim(),
    ...(object.quality_score !== undefined ? { quality_score: Math.round(object.quality_score * 100) / 100 } : {}),
    usage: withSummaryUsage(usage, fitted),
  };
};

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut}…`;
}
