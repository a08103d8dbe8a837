// What the model must answer, per role. Validated here at the edge, never in the workflow.
// Every field is required in the JSON schema (OpenAI's strict structured outputs reject optional
// ones); a field added later uses .catch so answers written without it stay valid.
import { z } from 'zod';

export const FINDING_CONFIDENCES = ['low', 'medium', 'high', 'confirmed', 'speculation'] as const;

export const planSchema = z.object({
  clarifying_questions: z.array(z.string()).max(5),
  expanded_queries: z
    .array(z.object({ query: z.string().min(1), rationale: z.string(), priority: z.number().int().min(1).max(10) }))
    .min(1)
    .max(12)
    // The model is asked for at most 5 (max_sub_queries' ceiling); a longer answer still parses and is cut by priority.
    .meta({ maxItems: 5 }),
  outline: z.array(z.string().min(1)).min(1).max(12),
  research_brief: z.string().min(1),
  assumptions: z.array(z.string()),
  // Added later: answers without it stay valid (the language is then detected from the question).
  context: z
    .object({
      language: z.string().min(2).max(20),
      domain: z.enum(['technical', 'business', 'academic', 'creative', 'general']).catch('general'),
      mode: z.enum(['deep_dive', 'quick_answer', 'comparison', 'standard']).catch('standard'),
      intent_summary: z.string(),
      answer_style: z.array(z.string()).max(6),
      time_scope: z.string().nullable(),
      locale_scope: z.string().nullable(),
    })
    .nullable()
    .catch(null),
  // Added later: answers without it stay valid (no other language is then searched or judged in).
  translations: z
    .array(z.object({ language: z.string().min(2).max(20), question: z.string().min(1).max(600) }))
    .max(6)
    .catch([]),
});

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
    .max(40),
  gaps: z
    .array(
      z.object({
        description: z.string().min(1),
        suggested_queries: z.array(z.string().min(1)).max(5),
        priority: z.number().int().min(1).max(10),
      }),
    )
    .max(10),
  // Added later: the sources the analyst found do not address the question (never cited). Answers without it stay valid.
  not_addressing: z
    .array(z.object({ source_id: z.string(), reason: z.string() }))
    .max(50)
    .nullable()
    .catch(null),
  // Nullable rather than optional: strict structured outputs require every key; older answers lack it.
  source_quality: z
    .array(z.object({ source_id: z.string(), quality: z.enum(['low', 'medium', 'high']) }))
    .max(50)
    .nullable()
    .catch(null),
});

export const triageSchema = z.object({
  verdicts: z
    .array(z.object({ source_id: z.string(), verdict: z.enum(['addresses', 'partly', 'no']), why: z.string() }))
    .max(100),
});

/** Patches the writer is asked for at most. */
export const WRITER_PATCHES_ASKED = 20;

export const reportPatchSchema = z.object({
  // A longer answer still parses: what a patch may add is bounded by characters (in the activity
  // before it enters history, and when applied), so a 21st patch never costs the research.
  patches: z.array(z.object({ section: z.string().min(1), markdown: z.string() })).meta({ maxItems: WRITER_PATCHES_ASKED }),
});

export const critiqueSchema = z.object({
  verdict: z.enum(['PASS', 'REVISE']),
  feedback: z.string(),
  missing: z.array(z.string().min(1)).max(10),
  suggested_queries: z.array(z.string().min(1)).max(5),
  contradictions: z.array(z.object({ finding_ids: z.array(z.string().min(1)).min(1), description: z.string().min(1) })).max(10),
});

export const gapRefinementSchema = z.object({
  gaps: z
    .array(
      z.object({
        description: z.string().min(1),
        suggested_queries: z.array(z.string().min(1)).min(1).max(3),
        priority: z.number().int().min(1).max(10),
      }),
    )
    .max(8),
  rationale: z.string(),
});

// Length limits are enforced by trimming in the activity: a long reflection is not worth a repair call.
export const phaseReflectionSchema = z.object({
  reflection: z.string().min(1),
  retry: z.boolean(),
  guidance_for_next_phase: z.string(),
  // Optional so a model that leaves it out costs no repair call; the harness and real models give it.
  quality_score: z.number().min(0).max(1).optional(),
});

export const summarySchema = z.object({ summary: z.string() });

export const panelAnswerSchema = z.object({ answer: z.string().min(1) });

export const panelSynthesisSchema = z.object({
  paragraphs: z.array(z.object({ text: z.string().min(1), models: z.array(z.string()) })).min(1).max(60),
  conflicts: z.array(z.object({ topic: z.string().min(1), positions: z.array(z.object({ model: z.string(), position: z.string() })) })).max(20),
  agreement: z.enum(['high', 'medium', 'low']),
});

export const inputCheckSchema = z.object({
  quality: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  reason: z.string().min(1),
  improved_prompt: z.string().nullable(),
});

export const inputImprovementSchema = z.object({ improved_prompt: z.string().min(1) });
