// The triage of a round's doubtful pages (no embedding model judged them): one call for all of
// them, each shown by what a reader skims before deciding to read: its title, the search snippet,
// its opening and its passage most like the question.
import { z } from 'zod';
import type { ModelRoleSpec } from './role';

/** Pages judged in one call at most. */
export const TRIAGE_PAGES = 100;

export const triageSchema = z.object({
  verdicts: z
    .array(z.object({ source_id: z.string(), verdict: z.enum(['addresses', 'partly', 'no']), why: z.string() }))
    .max(TRIAGE_PAGES),
});

const TRIAGE_SYSTEM = `You triage web pages for a research assistant before they are read in full.
For each page, judge from its title, its search snippet, its opening and its passage most like the question whether
reading it would help answer the research question: the whole question, not one word of it. A page may answer in other
words than the question, or in another language.
- addresses: it is about what the question asks.
- partly: it answers part of the question, or is about its subject with a bearing on what is asked.
- no: it is about something else (it shares a word or a name with the question, not its subject).
why: one short sentence. Judge every page given, by its id.
Answer with JSON only.`;

export const triage: ModelRoleSpec<z.infer<typeof triageSchema>> = { role: 'triage', name: 'source_triage', system: TRIAGE_SYSTEM, schema: triageSchema };

export interface TriagePage {
  id: string;
  url: string;
  title: string;
  snippet: string;
  opening: string;
  passage: string;
}

const clean = (text: string) => text.replace(/\s+/g, ' ').trim();

export function triagePrompt(input: { question: string; translations?: string[]; pages: TriagePage[] }): string {
  const pages = input.pages.map((p) =>
    [
      `<page id="${p.id}" url="${p.url.replace(/"/g, '%22')}">`,
      `Title: ${clean(p.title)}`,
      ...(p.snippet.trim() ? [`Search snippet: ${clean(p.snippet)}`] : []),
      `Opening: ${clean(p.opening)}`,
      ...(p.passage.trim() ? [`Passage most like the question: ${clean(p.passage)}`] : []),
      '</page>',
    ].join('\n'),
  );
  return [
    `Research question:\n${input.question}`,
    ...(input.translations?.length ? [`The same question as its sources may put it:\n${input.translations.map((t) => `- ${t}`).join('\n')}`] : []),
    `Pages:\n${pages.join('\n\n')}`,
  ].join('\n\n');
}
