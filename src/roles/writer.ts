import type { Finding } from '../../domain/types';

export const WRITER_SYSTEM = `You are the report writer of a deep-research assistant.
You receive the current markdown report and new findings. Return patches that add the new
knowledge to the report: for each patch, the exact title of an outline section and the markdown
to append to it (plain paragraphs or bullet lists; no headings). Cite sources inline with their
ids in square brackets, e.g. [S2], and only ids listed with the findings. Use every finding: each
belongs in some section, merged with others where they overlap. Keep it concise: all patches
together must stay under the given character budget. When sections are named as still empty,
put the findings that bear on them there. Answer with JSON only.`;

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
