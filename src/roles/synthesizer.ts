// The panel's synthesizer: merges the members' answers into one report, crediting each paragraph.
import { z } from 'zod';
import type { ModelRoleSpec } from './role';

export const PANEL_SYNTHESIS_LIMITS = { paragraphs: 60, conflicts: 20 } as const;

export const panelSynthesisSchema = z.object({
  paragraphs: z.array(z.object({ text: z.string().min(1), models: z.array(z.string()) })).min(1).max(PANEL_SYNTHESIS_LIMITS.paragraphs),
  conflicts: z.array(z.object({ topic: z.string().min(1), positions: z.array(z.object({ model: z.string(), position: z.string() })) })).max(PANEL_SYNTHESIS_LIMITS.conflicts),
  agreement: z.enum(['high', 'medium', 'low']),
});

const SYNTHESIZER_SYSTEM = `You merge the answers of a research panel (several models answering the same question from the
same evidence) into one report.
- paragraphs: the merged report, paragraph by paragraph, in Markdown. For each paragraph name in
  "models" every panel model whose answer supports it (use the exact model names given). Keep the
  [S1]-style citations of the answers; never invent one.
- conflicts: every point where the answers disagree: the topic, and each model's position.
- agreement: "high" when the answers agree on the substance, "medium" when they differ on some
  points, "low" when they contradict each other on the main answer.
- Write in the language of the question.
Answer with JSON only.`;

export const synthesizer: ModelRoleSpec<z.infer<typeof panelSynthesisSchema>> = { role: 'synthesizer', name: 'panel_synthesis', system: SYNTHESIZER_SYSTEM, schema: panelSynthesisSchema };

export function synthesizerPrompt(input: { query: string }, answers: { model: string; text: string }[]): string {
  const parts = [`Question:\n${input.query}`, `Panel models: ${answers.map((a) => a.model).join(', ')}`];
  for (const a of answers) parts.push(`<answer model="${a.model}">\n${a.text}\n</answer>`);
  return parts.join('\n\n');
}
