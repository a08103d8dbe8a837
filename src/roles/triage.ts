// The triage of a round's doubtful pages (no embedding model judged them): one call for all of
// them, each shown by what a reader skims before deciding to read: its title, the search snippet,
// its opening and its passage most like the question.
import { z } from 'zod';
import type { ModelUsage } from '../domain/types';
import type { RelevanceJudgement } from '../domain/sources';
import { splitPassages } from '../report/passages';
import { relevanceScore } from '../report/relevance';
import type { ModelRoleSpec, RoleActivity } from './role';

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

export function triagePrompt(input: { question: string; translations?: string[]; focus?: string; pages: TriagePage[] }): string {
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
    ...(input.focus ? [`This research adds to an earlier report, asked to look into:\n${input.focus}\nA page about that addresses the question.`] : []),
    `Pages:\n${pages.join('\n\n')}`,
  ].join('\n\n');
}

/** The activity's input (triageSources; as histories record it). */
export interface TriageSourcesInput {
  model?: string;
  question: string;
  /** The question as its sources say it in their other languages. */
  translations?: string[];
  /** An enhanced version's focus: a page about it addresses the question. */
  focus?: string;
  sources: { id: string; url: string; title: string; snippet: string; text_file_id: string; sub_question: string }[];
}
export interface TriageSourcesOutput {
  /** Per source id the model judged (a page it left out has none). */
  verdicts: Record<string, { verdict: RelevanceJudgement['verdict']; why: string }>;
  usage: ModelUsage;
}

/** The model's verdict on a round's doubtful pages, in one call; ids it does not know are dropped. */
export const triageSources: RoleActivity<TriageSourcesInput, TriageSourcesOutput> = async (input, tools) => {
  const asked = [input.question, ...(input.translations ?? []), ...(input.focus ? [input.focus] : [])];
  const pages = await Promise.all(input.sources.map(async (s) => pageOf(s, await tools.text(s.text_file_id).catch(() => ''), [...asked, s.sub_question])));
  const call = await tools.call(triage, { requested: input.model, prompt: triagePrompt({ question: input.question, translations: input.translations, focus: input.focus, pages }) });
  const known = new Set(input.sources.map((s) => s.id));
  const verdicts: TriageSourcesOutput['verdicts'] = {};
  for (const v of call.object.verdicts) if (known.has(v.source_id) && !verdicts[v.source_id]) verdicts[v.source_id] = { verdict: v.verdict, why: v.why.trim().slice(0, 300) };
  return { verdicts, usage: call.usage };
};

const OPENING_CHARS = 500;
const PASSAGE_CHARS = 700;
const SNIPPET_CHARS = 300;
/** Passages looked through for the one most like the question. */
const PASSAGES_SEARCHED = 60;

/** What a reader skims of a page: its opening, and the passage after it that is most about the question. */
export function pageOf(source: TriageSourcesInput['sources'][number], text: string, questions: string[]): TriagePage {
  const passages = splitPassages(text).slice(0, PASSAGES_SEARCHED);
  const opening = passages[0]?.text ?? '';
  let passage = '';
  let best = 0;
  for (const p of passages.slice(1)) {
    const score = relevanceScore(p.text, questions);
    if (score > best) [best, passage] = [score, p.text];
  }
  return { id: source.id, url: source.url, title: source.title.slice(0, 300), snippet: source.snippet.slice(0, SNIPPET_CHARS), opening: opening.slice(0, OPENING_CHARS), passage: passage.slice(0, PASSAGE_CHARS) };
}
