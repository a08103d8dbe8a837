// The panel's synthesizer: merges the members' answers into one report, crediting each paragraph.
import { z } from 'zod';
import type { ModelUsage, SourceRef } from '../domain/types';
import { verifyReportCitations } from '../report/final-check';
import { reportLanguage } from '../report/language';
import { mergeRepeatedParagraphs, sideBySide } from '../report/repeated-paragraphs';
import type { ModelRoleSpec, RoleActivity } from './role';

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

/** synthesizePanel's input (as histories record it). */
export interface SynthesizePanelInput {
  research_id: string;
  query: string;
  /** "provider:model" of the synthesizer; absent with skip_synthesis. */
  model?: string;
  answers: { model: string; file_id: string }[];
  /** Models that failed and were left out (named in the report). */
  failed: string[];
  sources: SourceRef[];
  skip_synthesis: boolean;
}
export interface SynthesizePanelOutput {
  report_file_id: string;
  chars: number;
  agreement?: 'high' | 'medium' | 'low';
  conflicts: { topic: string; positions: { model: string; position: string }[] }[];
  paragraphs: number;
  attributed_models: string[];
  usage?: ModelUsage;
}

const MAX_ANSWER_CHARS_FOR_SYNTHESIS = 30_000;

/** The panel's report: one synthesis crediting each paragraph to the models that say it, or the answers side by side. */
export const synthesizePanel: RoleActivity<SynthesizePanelInput, SynthesizePanelOutput> = async (input, tools) => {
  const answers = await Promise.all(input.answers.map(async (a) => ({ model: a.model, text: (await tools.text(a.file_id)).slice(0, MAX_ANSWER_CHARS_FOR_SYNTHESIS) })));
  const failedNote = input.failed.length ? `\n\n> Left out after failing: ${input.failed.join(', ')}.` : '';
  if (input.skip_synthesis || !input.model) {
    const markdown = checkedCitations(`# ${input.query}\n\n${sideBySide(answers)}${failedNote}\n`, input.sources);
    const stored = await tools.store(markdown, { name: `${input.research_id}-panel-side-by-side`, kind: 'text' });
    return { report_file_id: stored.file_id, chars: markdown.length, conflicts: [], paragraphs: answers.length, attributed_models: answers.map((a) => a.model) };
  }
  const { object, usage } = await tools.call(synthesizer, { requested: input.model, prompt: synthesizerPrompt(input, answers) });
  const panel = new Set(answers.map((a) => a.model));
  // Only models that answered can be credited; a paragraph nobody is credited for says so.
  const paragraphs = mergeRepeatedParagraphs(object.paragraphs.map((p) => ({ text: p.text.trim(), models: [...new Set(p.models.map((m) => m.trim()))].filter((m) => panel.has(m)) })));
  const conflicts = object.conflicts
    .map((c) => ({ topic: c.topic.trim(), positions: c.positions.filter((p) => panel.has(p.model.trim())).map((p) => ({ model: p.model.trim(), position: p.position.trim() })) }))
    .filter((c) => c.positions.length > 0);
  const body = paragraphs.map((p) => `${p.text}\n\n*— ${p.models.length ? p.models.join(', ') : 'the synthesizer (no panel answer says this)'}*`).join('\n\n');
  const conflictList = conflicts.length ? conflicts.map((c) => `- **${c.topic}**: ${c.positions.map((p) => `${p.model}: ${p.position}`).join('; ')}`).join('\n') : '- None detected.';
  const markdown = checkedCitations(
    [`# ${input.query}`, `Panel: ${answers.map((a) => a.model).join(', ')}. Synthesis: ${input.model}. Agreement: **${object.agreement}**.${failedNote}`, body, `## Detected conflicts\n\n${conflictList}`].join('\n\n') + '\n',
    input.sources,
  );
  const stored = await tools.store(markdown, { name: `${input.research_id}-panel-synthesis`, kind: 'text' });
  return {
    report_file_id: stored.file_id,
    chars: markdown.length,
    agreement: object.agreement,
    conflicts,
    paragraphs: paragraphs.length,
    attributed_models: [...new Set(paragraphs.flatMap((p) => p.models))],
    usage,
  };
};

/**
 * The same citation check as a single-model report: every citation shape resolved to a fetched
 * source or removed and listed under Notes with its claim; the Sources list names what is cited.
 */
function checkedCitations(markdown: string, sources: SourceRef[]): string {
  // Panel reports merge their own repeats by paragraph (side by side, each answer keeps its own section).
  return verifyReportCitations(markdown, sources, 0, { language: reportLanguage(undefined, markdown) }, { mergeRepeats: false }).markdown;
}
