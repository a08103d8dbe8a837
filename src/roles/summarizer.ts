// The summarizer: condenses content to fit a model's context budget, at a fidelity level and a word limit.
import { z } from 'zod';
import type { FidelityLevel } from '../context-fit/allocate';
import type { ModelRoleSpec } from './role';

export const summarySchema = z.object({ summary: z.string() });

const SUMMARIZER_SYSTEM = `You condense research content so it fits a model's context budget.
Keep what a researcher needs: figures, dates, names, claims and who makes them. Never add anything
the text does not say, and keep its language. Stay under the word limit you are given.
Answer with JSON only: {"summary": "..."}.`;

export const summarizer: ModelRoleSpec<z.infer<typeof summarySchema>> = { role: 'summarizer', name: 'content_summary', system: SUMMARIZER_SYSTEM, schema: summarySchema };

const STYLE: Record<Exclude<FidelityLevel, 'full' | 'dropped'>, string> = {
  condensed: 'A light summary that keeps the key details, in prose.',
  compressed: 'A heavy summary: the main points only.',
  key_points: 'Bullet points ("- ") of the critical information only.',
  headline: 'One sentence.',
};

export function summarizerPrompt(input: { title: string; text: string; level: Exclude<FidelityLevel, 'full' | 'dropped'>; max_words: number }): string {
  return [
    `Level: ${input.level} — ${STYLE[input.level]}`,
    `Word limit: ${input.max_words}`,
    ...(input.title ? [`Title: ${input.title}`] : []),
    `Content:\n${input.text}`,
  ].join('\n\n');
}
