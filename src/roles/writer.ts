// The report writer: patches that add new findings to the living report, each to one outline section.
import { z } from 'zod';
import { confidenceWeight, withSummaryUsage } from '../context-fit/fit';
import type { Finding, ModelUsage, SourceRef } from '../domain/types';
import { dedupeFindings } from '../report/dedupe';
import type { ModelChoice, ModelRoleSpec, RoleActivity } from './role';

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

const wordsIn = (markdown: string) => (markdown.match(/[\p{L}\p{N}]+/gu) ?? []).length;

export function writerPrompt(input: {
  query: string;
  outline: string[];
  report_markdown: string;
  findings: Finding[];
  sources: { id: string; title: string; url: string }[];
  max_update_chars: number;
  language?: string;
  fill_sections?: string[];
  target_words?: number;
}): string {
  return [
    `Research question:\n${input.query}`,
    ...(input.language ? [`Write every patch in the language of the question (${input.language}).`] : []),
    `Outline sections: ${input.outline.map((s) => `"${s}"`).join(', ')}`,
    ...(input.fill_sections?.length ? [`Still empty (put the findings that bear on them here): ${input.fill_sections.map((s) => `"${s}"`).join(', ')}`] : []),
    `Character budget for all patches: ${input.max_update_chars}`,
    ...(input.target_words ? [`The finished report should run to about ${input.target_words} words in all (it has ${wordsIn(input.report_markdown)} now): write to that length as far as the findings allow, never padding it.`] : []),
    `New findings:\n${input.findings.map((f) => `- (${f.confidence}) ${f.content} [${f.source_ids.join(', ')}]`).join('\n')}`,
    `Sources:\n${input.sources.map((s) => `- [${s.id}] ${s.title} — ${s.url}`).join('\n')}`,
    `Current report:\n${input.report_markdown}`,
  ].join('\n\n');
}

/** One section patch as the writer proposes it (bounded: applying it cuts it to max_update_chars). */
export interface ReportPatch {
  section: string;
  markdown: string;
}

export interface WriteReportPatchInput extends ModelChoice {
  /** The report's length asked for, in words (report_length). */
  target_words?: number;
  query: string;
  outline: string[];
  report_file_id: string;
  findings: Finding[];
  sources: SourceRef[];
  max_update_chars: number;
  /** The asker's language (plan's research context), for the writer. */
  language?: string;
  /** Outline sections still empty: the writer puts the findings that bear on them there. */
  fill_sections?: string[];
}
/** The writer's proposal only: the model's output is durable in history before anything is stored. */
export interface WriteReportPatchOutput {
  patches: ReportPatch[];
  usage: ModelUsage;
}

/**
 * The writer's proposal for the new findings. It stores nothing: the proposal is durable in
 * history the moment it returns, and applying it is a store step of its own.
 */
export const writeReportPatch: RoleActivity<WriteReportPatchInput, WriteReportPatchOutput> = async (input, tools) => {
  const modelRef = input.model ?? tools.defaultModel('writer');
  const report = await tools.text(input.report_file_id);
  // Findings that repeat each other or the report never reach the writer; their sources are kept.
  const unique = dedupeFindings(input.findings, report);
  if (unique.findings.length === 0) return { patches: [], usage: { role: 'writer', model: modelRef, input_tokens: 0, output_tokens: 0, cost_usd: 0 } };
  // Synthesis budget (35 %): the new findings first, then the report so far (context only:
  // patches are applied to the full report).
  const findings = unique.findings;
  const fitted = await tools.fit(
    [
      // Findings reach the writer at least as headlines: a dropped one would never be written.
      ...findings.map((f) => ({ id: f.id, kind: 'finding', text: f.content, relevance: confidenceWeight(f.confidence), protected: true })),
      { id: 'report', kind: 'report', text: unique.report, relevance: 0.2, protected: true },
    ],
    { phase: 'synthesis', modelRef, fixedPrompt: writerPrompt({ ...input, report_markdown: '', findings: findings.map((f) => ({ ...f, content: '' })) }) },
  );
  const shown = findings.map((f, i) => ({ ...f, content: fitted.texts[i] })).filter((f) => f.content);
  const call = await tools.call(writer, { requested: input.model, prompt: writerPrompt({ ...input, report_markdown: fitted.texts[findings.length], findings: shown }), stream: input.stream });
  // Bounded before it enters history (applying cuts them to max_update_chars anyway): each
  // patch, and all of them together to what the patches asked for could hold, however many came.
  const cap = Math.max(2_000, input.max_update_chars * 4);
  let room = cap * WRITER_PATCHES_ASKED;
  const patches: ReportPatch[] = [];
  for (const p of call.object.patches) {
    const markdown = p.markdown.slice(0, cap);
    if ((room -= markdown.length) < 0) break;
    patches.push({ section: p.section.slice(0, 300), markdown });
  }
  return { patches, usage: withSummaryUsage(call.usage, fitted) };
};
