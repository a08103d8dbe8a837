// The report writer: patches that add new findings to the living report, each to one outline section.
import { z } from 'zod';
import type { Finding } from '../domain/types';
import type { ModelRoleSpec } from './role';

/** Patches the writer is asked for at most. */
export const WRITER_PATCHES_ASKED = 20;

export const reportPatchSchema = z.object({
  // A longer answer still parses: what a patch may add is bounded by characters (in the activity
  // before it enters history, and when applied), so a 21st patch never costs the research.
  patches: z.array(z.object({ section: z.string().min(1), markdown: z.string() })).meta({ maxItems: WRITER_PATCHES_ASKED }),
});

const WRITER_SYSTEM = `You are the report writer of a deep-research assistant.
You receive the current markdown report and new findings. Return patches that add the new
knowledge to the report: for each patch, the exact title of an outline section and the markdown
to append to it (plain paragraphs or bullet lists; no headings). Cite sources inline with their
ids in square brackets, e.g. [S2], and only ids listed with the findings. Use every finding: each
belongs in some section, merged with others where they overlap. Keep it concise: all patches
together must stay under the given character budget. When sections are named as still empty,
put the findings that bear on them there. Answer with JSON only.`;

export const writer: ModelRoleSpec<z.infer<typeof reportPatchSchema>> = { role: 'writer', name: 'report_patch', system: WRITER_SYSTEM, schema: reportPatchSchema };

export function writerPrompt(input: {
  query: string;
  outline: string[];
  report_markdown: string;
  findings: Finding[];
  sources: { id: string; title: string; url: string }[];
  max_update_chars: number;
  language?: string;
  fill_sections?: string[];
}): string {
  return [
    `Research question:\n${input.query}`,
    ...(input.language ? [`Write every patch in the language of the question (${input.language}).`] : []),
    `Outline sections: ${input.outline.map((s) => `"${s}"`).join(', ')}`,
    ...(input.fill_sections?.length ? [`Still empty (put the findings that bear on them here): ${input.fill_sections.map((s) => `"${s}"`).join(', ')}`] : []),
    `Character budget for all patches: ${input.max_update_chars}`,
    `New findings:\n${input.findings.map((f) => `- (${f.confidence}) ${f.content} [${f.source_ids.join(', ')}]`).join('\n')}`,
    `Sources:\n${input.sources.map((s) => `- [${s.id}] ${s.title} — ${s.url}`).join('\n')}`,
    `Current report:\n${input.report_markdown}`,
  ].join('\n\n');
}
