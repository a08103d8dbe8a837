import type { Clarification } from '../../domain/types';
import { normalizeQuery } from '../../domain/text';
import { subjectSimilarity } from '../../report/words';
import type { DecomposeQueryInput } from '../contracts';

export const PLANNER_SYSTEM = `You are the research planner of a deep-research assistant.
You have no web access. From the user's question, draft a research plan:
- clarifying_questions: at most 3 questions whose answers would change the research; empty if the question is clear.
  Never ask again what "Answers to clarifying questions" already answers, in any wording.
- expanded_queries: 3 to 6 web search queries that together cover the question, each with a rationale and a priority (1 = most important).
- outline: 3 to 6 section titles for the final report (no "Sources" section: it is added automatically).
- research_brief: 2 to 4 sentences on what the research must establish.
- assumptions: what you assume where the question is ambiguous.
- context: the research context: language (BCP 47 tag of the language the question is written in, e.g. "en", "zh", "de"),
  domain (technical, business, academic, creative or general), mode (deep_dive, quick_answer, comparison or standard),
  intent_summary (one sentence: what the asker wants to learn and why), answer_style (e.g. "concise", "tables", "step-by-step"),
  time_scope and locale_scope (the period and places the question is about; null when it names none).
Write clarifying_questions, outline, research_brief and assumptions in the language of the question; search queries may
be in whatever language finds the best sources.
Answer with JSON only.`;

export function plannerPrompt(input: Pick<DecomposeQueryInput, 'query' | 'clarifications' | 'feedback' | 'previousPlan' | 'max_sub_queries' | 'known_documents'>): string {
  const parts = [`Question:\n${input.query}`];
  if (input.max_sub_queries) parts.push(`Plan at most ${input.max_sub_queries} expanded_queries (sub-questions), and at least ${Math.min(2, input.max_sub_queries)}.`);
  if (input.known_documents?.length) {
    parts.push(
      `The user's own documents that match (their local corpus, not the web) — plan around what they already have:\n${input.known_documents
        .map((d) => `- ${d.title}: ${d.snippet}`)
        .join('\n')}`,
    );
  }
  if (input.clarifications.length) {
    parts.push(`Answers to clarifying questions (already answered: do not ask them again):\n${input.clarifications.map((c) => `- Q: ${c.question}\n  A: ${c.answer}`).join('\n')}`);
  }
  if (input.previousPlan && input.feedback.length) {
    parts.push(`Previous plan:\n${JSON.stringify(input.previousPlan, null, 2)}`);
    parts.push(`Reviewer feedback (revise the plan accordingly):\n${input.feedback.map((f) => `- ${f}`).join('\n')}`);
  }
  return parts.join('\n\n');
}

/** Content words a new question must share (Dice) with an answered one to count as asking it again. */
const SAME_QUESTION = 0.6;

/** The planner's questions without those the user already answered, however they are reworded. */
export function unansweredQuestions(questions: string[], answered: Clarification[]): string[] {
  const key = (q: string) => normalizeQuery(q).replace(/[^\p{L}\p{N} ]+/gu, '').trim();
  const asked = answered.map((c) => c.question);
  return questions.filter((q) => !asked.some((a) => key(a) === key(q) || subjectSimilarity(a, q) >= SAME_QUESTION));
}
