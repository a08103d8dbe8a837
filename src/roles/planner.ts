// The planner: from the question alone (no web), a research plan; its questions for the user, its
// sub-questions and its outline are bounded by PLAN_LIMITS, which the prompt and the schema both state.
import { z } from 'zod';
import { withSummaryUsage } from '../context-fit/fit';
import type { Clarification, ModelUsage, QuestionTranslation, ResearchPlan } from '../domain/types';
import { normalizeQuery } from '../domain/text';
import { reconcileLanguage } from '../report/language';
import { subjectSimilarity } from '../report/words';
import { askedItems, type ModelChoice, type ModelRoleSpec, type RoleActivity } from './role';

/** What the planner is asked for; `accepted` is what still parses (the activity cuts the rest). */
export const PLAN_LIMITS = {
  clarifying_questions: { asked: { max: 3 }, accepted: 5 },
  // max_sub_queries' range (2..5): the question's own limit narrows it in the prompt.
  expanded_queries: { asked: { min: 2, max: 5 }, accepted: 12 },
  outline: { asked: { min: 3, max: 6 }, accepted: 12 },
  priority: { min: 1, max: 10 },
} as const;

const { clarifying_questions: questions, expanded_queries: queries, outline, priority } = PLAN_LIMITS;

export const planSchema = z.object({
  clarifying_questions: z.array(z.string()).max(questions.accepted).meta(askedItems(questions.asked)),
  expanded_queries: z
    .array(z.object({ query: z.string().min(1), rationale: z.string(), priority: z.number().int().min(priority.min).max(priority.max) }))
    .min(1)
    .max(queries.accepted)
    // A longer answer still parses and is cut by priority to the question's max_sub_queries.
    .meta(askedItems(queries.asked)),
  outline: z.array(z.string().min(1)).min(1).max(outline.accepted).meta(askedItems(outline.asked)),
  research_brief: z.string().min(1),
  assumptions: z.array(z.string()),
  // Added later: answers without it stay valid (the language is then detected from the question).
  context: z
    .object({
      language: z.string().min(2).max(20),
      domain: z.enum(['technical', 'business', 'academic', 'creative', 'general']).catch('general'),
      mode: z.enum(['deep_dive', 'quick_answer', 'comparison', 'standard']).catch('standard'),
      intent_summary: z.string(),
      answer_style: z.array(z.string()).max(6),
      time_scope: z.string().nullable(),
      locale_scope: z.string().nullable(),
    })
    .nullable()
    .catch(null),
  // Added later: answers without it stay valid (no other language is then searched or judged in).
  translations: z
    .array(z.object({ language: z.string().min(2).max(20), question: z.string().min(1).max(600) }))
    .max(6)
    .catch([]),
});

const PLANNER_SYSTEM = `You are the research planner of a deep-research assistant.
You have no web access. From the user's question, draft a research plan:
- clarifying_questions: at most ${questions.asked.max} questions whose answers would change the research; empty if the question is clear.
  Never ask again what "Answers to clarifying questions" already answers, in any wording.
- expanded_queries: ${queries.asked.min} to ${queries.asked.max} web search queries that together cover the question, each with a rationale and a priority (${priority.min} = most important).
- outline: ${outline.asked.min} to ${outline.asked.max} section titles for the final report (no "Sources" section: it is added automatically).
- research_brief: 2 to 4 sentences on what the research must establish.
- assumptions: what you assume where the question is ambiguous.
- context: the research context: language (BCP 47 tag of the language the question is written in, e.g. "en", "zh", "de"),
  domain (technical, business, academic, creative or general), mode (deep_dive, quick_answer, comparison or standard),
  intent_summary (one sentence: what the asker wants to learn and why), answer_style (e.g. "concise", "tables", "step-by-step"),
  time_scope and locale_scope (the period and places the question is about; null when it names none).
- translations: the question rendered in each language, other than the question's own, that the best sources on it are
  written in, as those sources would put it (a German question about a US company or an English-language product: its
  English rendering; a question about a country's affairs: that country's language too); [] when the best sources are in
  the question's language. Each item: language (BCP 47 tag) and question.
Write clarifying_questions, outline, research_brief and assumptions in the language of the question. Write the search
queries in the language(s) of the best sources: for a topic the web covers mainly in another language, most queries in it.
Answer with JSON only.`;

export const planner: ModelRoleSpec<z.infer<typeof planSchema>> = { role: 'planner', name: 'research_plan', system: PLANNER_SYSTEM, schema: planSchema };

/** What the planner's prompt is built from (the decomposeQuery activity's input). */
export interface PlannerPromptInput {
  query: string;
  clarifications: Clarification[];
  feedback: string[];
  previousPlan?: ResearchPlan;
  max_sub_queries?: number;
  known_documents?: { title: string; snippet: string }[];
}

export function plannerPrompt(input: PlannerPromptInput): string {
  const parts = [`Question:\n${input.query}`];
  if (input.max_sub_queries) parts.push(`Plan at most ${input.max_sub_queries} expanded_queries (sub-questions), and at least ${Math.min(queries.asked.min, input.max_sub_queries)}.`);
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

/** The planner's prompt input, for one session (decomposeQuery; as histories record it). */
export interface DecomposeQueryInput extends ModelChoice, PlannerPromptInput {
  researchId: string;
}
export interface DecomposeQueryOutput {
  plan: ResearchPlan;
  usage: ModelUsage;
}

/** The research plan: sub-questions, outline, brief and clarifying questions; no search, no fetch. */
export const decomposeQuery: RoleActivity<DecomposeQueryInput, DecomposeQueryOutput> = async (input, tools) => {
  // Planning budget (10 %): the user's documents and answers are what can grow.
  const docs = input.known_documents ?? [];
  const fitted = await tools.fit(
    [
      ...docs.map((d, i) => ({ id: `doc-${i + 1}`, kind: 'document', text: d.snippet, title: d.title, relevance: 0.8 - (0.3 * i) / Math.max(1, docs.length) })),
      ...input.clarifications.map((c, i) => ({ id: `answer-${i + 1}`, kind: 'clarification', text: c.answer, relevance: 1, protected: true })),
    ],
    { phase: 'planning', modelRef: input.model ?? tools.defaultModel('planner'), fixedPrompt: plannerPrompt({ ...input, known_documents: docs.map((d) => ({ ...d, snippet: '' })), clarifications: input.clarifications.map((c) => ({ ...c, answer: '' })) }) },
  );
  const known_documents = docs.map((d, i) => ({ ...d, snippet: fitted.texts[i] })).filter((d) => d.snippet);
  const clarifications = input.clarifications.map((c, i) => ({ ...c, answer: fitted.texts[docs.length + i] }));
  const call = await tools.call(planner, { requested: input.model, prompt: plannerPrompt({ ...input, known_documents, clarifications }), stream: input.stream });
  const { object } = call;
  const { context, translations, ...rest } = object;
  const plan: ResearchPlan = {
    ...rest,
    // A question the user already answered is never asked twice, however the model rewords it;
    // no more are asked than the planner was told it may.
    clarifying_questions: unansweredQuestions(rest.clarifying_questions, input.clarifications).slice(0, PLAN_LIMITS.clarifying_questions.asked.max),
    context: {
      language: reconcileLanguage(context?.language, input.query),
      domain: context?.domain ?? 'general',
      mode: context?.mode ?? 'standard',
      intent_summary: context?.intent_summary ?? '',
      answer_style: context?.answer_style ?? [],
      ...(context?.time_scope ? { time_scope: context.time_scope } : {}),
      ...(context?.locale_scope ? { locale_scope: context.locale_scope } : {}),
    },
    ...translationsOf(translations, context?.language, input.query),
    expanded_queries: dedupeBy(object.expanded_queries, (q) => normalizeQuery(q.query)),
    outline: dedupeBy(object.outline.map((t) => t.trim()), (t) => t.toLowerCase()).filter((t) => !/^(sources|notes)$/i.test(t)),
  };
  if (plan.outline.length === 0) plan.outline = ['Findings'];
  const max = input.max_sub_queries;
  if (max !== undefined && plan.expanded_queries.length > max) {
    const kept = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority).slice(0, max);
    plan.assumptions = [...plan.assumptions, `The planner proposed ${plan.expanded_queries.length} sub-questions; the ${max} most important were kept (max_sub_queries).`];
    plan.expanded_queries = plan.expanded_queries.filter((q) => kept.includes(q));
  }
  return { plan, usage: withSummaryUsage(call.usage, fitted) };
};

/** Languages besides the question's own that pages are judged in. */
const MAX_TRANSLATIONS = 3;

/** The question's renderings in its sources' other languages: each language once, none that only repeats the question. */
function translationsOf(translations: QuestionTranslation[], language: string | undefined, question: string): Pick<ResearchPlan, 'translations'> {
  const own = reconcileLanguage(language, question).toLowerCase().split('-')[0];
  const kept = dedupeBy(
    translations.map((t) => ({ language: t.language.trim(), question: t.question.trim() })).filter((t) => t.question && t.language.toLowerCase().split('-')[0] !== own && normalizeQuery(t.question) !== normalizeQuery(question)),
    (t) => t.language.toLowerCase(),
  ).slice(0, MAX_TRANSLATIONS);
  return kept.length ? { translations: kept } : {};
}

function dedupeBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
