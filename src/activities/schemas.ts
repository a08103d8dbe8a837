// What the model must answer, per role. Validated here at the edge, never in the workflow.
import { z } from 'zod';

export const planSchema = z.object({
  clarifying_questions: z.array(z.string()).max(5),
  expanded_queries: z
    .array(z.object({ query: z.string().min(1), rationale: z.string(), priority: z.number().int().min(1).max(10) }))
    .min(1)
    .max(12),
  outline: z.array(z.string().min(1)).min(1).max(12),
  research_brief: z.string().min(1),
  assumptions: z.array(z.string()),
});

export const analysisSchema = z.object({
  findings: z
    .array(
      z.object({
        content: z.string().min(1),
        confidence: z.enum(['low', 'medium', 'high']),
        source_ids: z.array(z.string()),
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
});

export const reportPatchSchema = z.object({
  patches: z.array(z.object({ section: z.string().min(1), markdown: z.string() })).max(20),
});
