// A session's research plan: what the planner drafts, a person may edit and approve, and the
// research follows (its own file so the message table can name an edited plan without the rest of
// the domain's types).

export interface ExpandedQuery {
  query: string;
  rationale: string;
  /** 1 is most important. */
  priority: number;
}

export interface ResearchPlan {
  clarifying_questions: string[];
  expanded_queries: ExpandedQuery[];
  outline: string[];
  research_brief: string;
  assumptions: string[];
  /** Who is asking what, in which language (absent in plans drafted before it). */
  context?: ResearchContext;
  /**
   * The question as its sources say it, in each other language they are written in (a German
   * question on a topic the web covers in English: its English rendering). Pages are judged against
   * the question in their own language. Absent or empty: the sources are in the question's language.
   */
  translations?: QuestionTranslation[];
}

export interface QuestionTranslation {
  /** BCP 47 tag, e.g. "en". */
  language: string;
  question: string;
}

/** The asker's language and intent, as the planner read them (seed 004's ResearchContext). */
export interface ResearchContext {
  /** BCP 47 tag of the question's language ("en", "zh", "de"); the report is written in it. */
  language: string;
  domain: 'technical' | 'business' | 'academic' | 'creative' | 'general';
  mode: 'deep_dive' | 'quick_answer' | 'comparison' | 'standard';
  intent_summary: string;
  answer_style: string[];
  time_scope?: string;
  locale_scope?: string;
}
