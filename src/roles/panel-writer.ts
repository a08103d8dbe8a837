// One panel member's answer to the question, from the shared research.
import { z } from 'zod';
import type { ModelUsage, SourceRef } from '../domain/types';
import type { ModelRoleSpec, RoleActivity } from './role';

export const panelAnswerSchema = z.object({ answer: z.string().min(1) });

const PANEL_WRITER_SYSTEM = `You are one member of a research panel. Several models answer the same question from the same
evidence, each on its own; a synthesizer later merges the answers and lists where they disagree.
- Answer the question in Markdown: a direct answer first, then the reasoning and the evidence.
- Use only the findings and sources given. Cite them inline as [S1], [S2]; never invent a source.
- Say plainly where the evidence is thin or where you weigh it differently than others might.
- Write in the language of the question.
Answer with JSON only: {"answer": "<markdown>"}.`;

export const panelWriter: ModelRoleSpec<z.infer<typeof panelAnswerSchema>> = { role: 'panel', name: 'panel_answer', system: PANEL_WRITER_SYSTEM, schema: panelAnswerSchema };

/** What a panel member's prompt is built from (the writePanelAnswer activity's input). */
export interface PanelWriterPromptInput {
  query: string;
  research_brief?: string;
  findings: { content: string; confidence: string; source_ids: string[] }[];
  sources: SourceRef[];
}

export function panelWriterPrompt(input: PanelWriterPromptInput, contexts: { label: string; text: string }[]): string {
  const findings = input.findings.length
    ? input.findings.map((f) => `- (${f.confidence}) ${f.content} [${f.source_ids.join(', ')}]`).join('\n')
    : '(no findings)';
  const sources = input.sources.length ? input.sources.map((s) => `- [${s.id}] ${s.title} — ${s.url}`).join('\n') : '(no sources)';
  const parts = [`Question:\n${input.query}`];
  if (input.research_brief) parts.push(`Brief:\n${input.research_brief}`);
  parts.push(`Findings from the shared research:\n${findings}`, `Sources:\n${sources}`);
  for (const c of contexts) parts.push(`Context given by the user (${c.label}):\n${c.text}`);
  return parts.join('\n\n');
}

/** writePanelAnswer's input (as histories record it). */
export interface WritePanelAnswerInput extends PanelWriterPromptInput {
  research_id: string;
  /** The panel model that answers, "provider:model". */
  model: string;
  /** The user's input contexts (artifact ids); their text goes into the prompt. */
  contexts: { file_id: string; label?: string }[];
}
export interface WritePanelAnswerOutput {
  /** The answer, in the artifact store. */
  file_id: string;
  chars: number;
  usage: ModelUsage;
}

const MAX_CONTEXT_CHARS = 20_000;

/** One panel model's answer to the question from the shared research; a long text, so only its id goes back. */
export const writePanelAnswer: RoleActivity<WritePanelAnswerInput, WritePanelAnswerOutput> = async (input, tools) => {
  const contexts = await Promise.all(input.contexts.map(async (c, i) => ({ label: c.label ?? `context ${i + 1}`, text: (await tools.text(c.file_id)).slice(0, MAX_CONTEXT_CHARS) })));
  const { object, usage } = await tools.call(panelWriter, { requested: input.model, prompt: panelWriterPrompt(input, contexts) });
  const answer = object.answer.trim();
  const stored = await tools.store(answer, { name: `${input.research_id}-panel-${input.model}`, kind: 'text' });
  return { file_id: stored.file_id, chars: answer.length, usage };
};
