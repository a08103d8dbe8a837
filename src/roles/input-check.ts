// Seed 004's validateInput and improveInput: is the question good enough to research, and a better one.
import { z } from 'zod';
import type { ModelUsage } from '../domain/types';
import type { ModelRoleSpec, RoleActivity } from './role';

export const inputCheckSchema = z.object({
  quality: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  reason: z.string().min(1),
  improved_prompt: z.string().nullable(),
});

export const inputImprovementSchema = z.object({ improved_prompt: z.string().min(1) });

const INPUT_CHECK_SYSTEM = `You judge a research question before research starts.
- quality: 0 when it cannot be researched as written (empty of meaning, no topic, not a question
  one could look up); 1 when it can be researched but is vague, too broad or ambiguous; 2 when it
  is clear and specific enough.
- reason: one or two sentences saying why.
- improved_prompt: with quality 0 or 1, a clearer, more specific version of the same question in
  the same language (keep the user's intent; add no facts of your own); with quality 2, null.
Answer with JSON only.`;

const INPUT_IMPROVE_SYSTEM = `You rewrite a research question so that research on it goes well: clear, specific, scoped
(what, where, when, for whom), in the same language, keeping the user's intent and adding no facts.
Answer with JSON only: {"improved_prompt": "<the question>"}.`;

export const inputCheck: ModelRoleSpec<z.infer<typeof inputCheckSchema>> = { role: 'input_check', name: 'input_check', system: INPUT_CHECK_SYSTEM, schema: inputCheckSchema };
export const inputImprovement: ModelRoleSpec<z.infer<typeof inputImprovementSchema>> = { role: 'input_check', name: 'input_improvement', system: INPUT_IMPROVE_SYSTEM, schema: inputImprovementSchema };

export function inputCheckPrompt(prompt: string): string {
  return `Research question:\n${prompt}`;
}

export interface ValidateInputInput {
  prompt: string;
  include_improvement?: boolean;
  model?: string;
}
export interface ValidateInputOutput {
  quality: 0 | 1 | 2;
  reason: string;
  improved_prompt?: string;
  usage: ModelUsage;
}
export interface ImproveInputInput {
  prompt: string;
  model?: string;
}
export interface ImproveInputOutput {
  improved_prompt: string;
  usage: ModelUsage;
}

/** The question rated 0 (unusable) to 2 (good), with a better one when it is not good. */
export const validateInput: RoleActivity<ValidateInputInput, ValidateInputOutput> = async (input, tools) => {
  const { object, usage } = await tools.call(inputCheck, { requested: input.model ?? tools.defaultModel('planner'), prompt: inputCheckPrompt(input.prompt) });
  const improved = object.improved_prompt?.trim();
  return {
    quality: object.quality,
    reason: object.reason.trim(),
    ...(input.include_improvement !== false && improved && object.quality < 2 ? { improved_prompt: improved } : {}),
    usage,
  };
};

export const improveInput: RoleActivity<ImproveInputInput, ImproveInputOutput> = async (input, tools) => {
  const { object, usage } = await tools.call(inputImprovement, { requested: input.model ?? tools.defaultModel('planner'), prompt: inputCheckPrompt(input.prompt) });
  return { improved_prompt: object.improved_prompt.trim(), usage };
};
