// The model's triage of a round's doubtful pages: those whose words alone would not have let them
// be read and that no embedding model judged. One call for all of them, each page shown by its
// title, search snippet, opening and passage most like the question; what is sent is bounded, so
// the call stays short whatever the pages hold.
import { relevanceScore } from '../report/relevance';
import { splitPassages } from '../verify/passages';
import type { TriageSourcesInput, TriageSourcesOutput } from './contracts';
import { createModelCall, type ModelDeps } from './model-call';
import { triage, triagePrompt, type TriagePage } from '../roles/triage';

const OPENING_CHARS = 500;
const PASSAGE_CHARS = 700;
const SNIPPET_CHARS = 300;
/** Passages looked through for the one most like the question. */
const PASSAGES_SEARCHED = 60;

export function createTriageActivities(deps: Pick<ModelDeps, 'model' | 'defaultModel' | 'pricing' | 'artifacts'>) {
  const callModel = createModelCall(deps);
  return {
    async triageSources(input: TriageSourcesInput): Promise<TriageSourcesOutput> {
      const asked = [input.question, ...(input.translations ?? [])];
      const pages = await Promise.all(input.sources.map(async (s) => pageOf(s, await deps.artifacts.getText(s.text_file_id).catch(() => ''), [...asked, s.sub_question])));
      const call = await callModel(triage, { requested: input.model, prompt: triagePrompt({ question: input.question, translations: input.translations, pages }) });
      const known = new Set(input.sources.map((s) => s.id));
      const verdicts: TriageSourcesOutput['verdicts'] = {};
      for (const v of call.object.verdicts) if (known.has(v.source_id) && !verdicts[v.source_id]) verdicts[v.source_id] = { verdict: v.verdict, why: v.why.trim().slice(0, 300) };
      return { verdicts, usage: call.usage };
    },
  };
}

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
