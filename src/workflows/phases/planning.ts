// Planning and the human checkpoint. Nothing here can reach the web: the only activities this
// module can reach are the planner model and the user's own documents (a local-only lookup), so
// web search, fetch and retrieval are structurally impossible before approval.
import { planningGate } from '../../research/gates';
import type { ExpandedQuery, InboxMessage, ResearchPlan } from '../../domain/types';
import { knowledge, planner } from '../activities';
import { awaitPerson } from '../runs';
import { errorMessage, type ResearchSession } from '../session';
import { deliver } from './deliver';
import { afterPhase, retryByRule } from './oversight';
import { callModel } from './providers';

export type PlanOutcome = 'approved' | 'rejected' | 'expired' | 'cancelled';

/** Seed 003's ask_topic: a session started without a question asks for one and waits for it. */
export async function askForTopic(s: ResearchSession): Promise<'given' | 'expired' | 'cancelled'> {
  if (s.state.initial_query) return 'given';
  if (s.state.waiting?.for !== 'topic') s.emit('Status', { level: 'info', kind: 'ask_topic', message: 'no research question was given: what should be researched?' });
  const answer = await awaitPerson(s, 'topic', { status: 'awaiting_topic', phase: 'planning', timeoutSeconds: s.settings.approval_timeout_seconds });
  if (answer === 'cancelled' || answer === 'expired') return answer;
  const query = (answer as Extract<InboxMessage, { kind: 'topic' }>).query;
  s.state.initial_query = query;
  s.info(`research question: ${query.slice(0, 200)}`);
  s.setStatus('planning', 'planning');
  return 'given';
}

/** The plan, drafted once and checked by its gate; then clarifications, revisions and the approval. */
export async function planWithUser(s: ResearchSession): Promise<PlanOutcome> {
  if (!s.state.plan) {
    await draftPlan(s);
    await checkPlan(s);
  }
  return agreeOnPlan(s);
}

/** Seed 003's knowledge lookup beside planning: the user's own corpus, never the web. */
async function lookUpLocalKnowledge(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.local_knowledge || !st.providers?.local_corpus) return;
  try {
    const out = await s.tool('lookup_local_knowledge', { query: st.initial_query }, () => knowledge.lookupLocalKnowledge({ query: st.initial_query, maxResults: 5 }), (r) => ({ hits: r.hits.length }));
    st.local_knowledge = out.hits;
    if (out.hits.length) s.info(`your documents: ${out.hits.length} match the question (${out.hits.map((h) => h.title).join('; ').slice(0, 300)})`);
  } catch (err) {
    st.local_knowledge = [];
    s.warn(`could not read your documents while planning: ${errorMessage(err)}`);
  }
}

async function draftPlan(s: ResearchSession): Promise<void> {
  s.setStatus('planning', 'planning');
  const st = s.state;
  await lookUpLocalKnowledge(s);
  s.emit('AgentInput', { role: 'planner', query: st.initial_query, clarifications: st.clarifications, feedback: st.plan_feedback });
  const out = await callModel(s, 'planner', (choice) =>
    s.tool(
      'decompose_query',
      { query: st.initial_query, clarifications: st.clarifications.length, feedback: st.plan_feedback.length, model: choice },
      () =>
        planner.decomposeQuery({
          researchId: st.research_id,
          query: st.initial_query,
          clarifications: st.clarifications,
          feedback: st.plan_feedback,
          previousPlan: st.plan,
          stream: s.streamTarget(),
          max_sub_queries: s.settings.max_sub_queries,
          ...(st.local_knowledge?.length ? { known_documents: st.local_knowledge.map((d) => ({ title: d.title, snippet: d.snippet })) } : {}),
          model: choice,
        }),
      (r) => ({ expanded_queries: r.plan.expanded_queries.length, clarifying_questions: r.plan.clarifying_questions.length, usage: r.usage }),
    ),
  );
  st.plan = out.plan;
  s.emit('AgentOutput', { role: 'planner', plan: out.plan });
}

/** The planning gate; a plan that fails it is redrafted once, by rule (a redraft can mend any of its failures). */
async function checkPlan(s: ResearchSession): Promise<void> {
  const plan = s.state.plan as ResearchPlan;
  const gate = planningGate(plan, s.settings.max_sub_queries);
  afterPhase(s, 'planning', gate, { sub_queries: plan.expanded_queries.length });
  if (!retryByRule(s, 'planning', gate, undefined)) return;
  s.state.plan_feedback.push(`The plan failed its quality check: ${gate.failures.join('; ')}.`);
  await draftPlan(s);
  const again = planningGate(s.state.plan as ResearchPlan, s.settings.max_sub_queries);
  s.mind.gates.push({ phase: 'planning', iteration: 0, passed: again.passed, failures: again.failures });
  s.decide({ agent: 'planner', action: again.passed ? 'replanned' : 'replanned_still_failing', rationale: again.passed ? 'the redrafted plan meets the gate' : again.failures.join('; '), inputs: {}, outputs: { sub_queries: s.state.plan?.expanded_queries.length ?? 0 } });
}

/** Clarification rounds, plan revisions and the approval itself, until a decision or expiry. Each wait ends the run. */
async function agreeOnPlan(s: ResearchSession): Promise<PlanOutcome> {
  const wait = { phase: undefined, timeoutSeconds: s.settings.approval_timeout_seconds };
  for (;;) {
    const plan = s.state.plan as ResearchPlan;
    if (wantsClarification(s, plan)) {
      const answer = await awaitPerson(s, 'clarification', { ...wait, status: 'awaiting_clarification', phase: 'awaiting_clarification' });
      if (answer === 'cancelled' || answer === 'expired') return answer;
      if (answer === 'settled') continue;
      if (answer.kind === 'reject') return rejected(s, answer.reason);
      if (answer.kind === 'answer') {
        if (allBlank(answer.answers)) skipClarifications(s, plan, 'the user skipped them');
        else {
          recordAnswers(s, plan.clarifying_questions, answer.answers);
          await draftPlan(s);
        }
      }
      continue;
    }
    if (s.settings.auto_approve) {
      if (plan.clarifying_questions.length && !s.settings.ask_clarifications && s.state.clarifications.length === 0) noteUnasked(plan, 'unattended run');
      if (s.input.approved_plan) applyEditedPlan(s, s.input.approved_plan);
      s.info('plan approved automatically (auto_approve)');
      return 'approved';
    }
    // Questions the planner asked that nobody was asked: the plan goes to approval saying so.
    if (plan.clarifying_questions.length && s.state.clarifications.length === 0 && s.state.clarification_rounds === 0) noteUnasked(plan, 'not asked: ask_clarifications is off');
    const answer = await awaitPerson(s, 'approval', { ...wait, status: 'awaiting_approval', phase: 'awaiting_approval', started: () => deliver(s, 'awaiting_approval') });
    if (answer === 'cancelled' || answer === 'expired') return answer;
    if (answer === 'settled') continue;
    if (answer.kind === 'reject') return rejected(s, answer.reason);
    if (answer.kind === 'approve') {
      if (answer.plan) applyEditedPlan(s, answer.plan);
      if (answer.panel?.length) {
        // The panel the user chose replaces the one that came out empty: its providers are settled again.
        s.settings.panel = answer.panel;
        s.state.providers = undefined;
      }
      s.info('plan approved');
      return 'approved';
    }
    if (answer.kind === 'revise') {
      s.state.plan_revisions += 1;
      s.state.plan_feedback.push(answer.feedback);
      s.info(`revising the plan (revision ${s.state.plan_revisions})`);
      await draftPlan(s);
    }
  }
}

function wantsClarification(s: ResearchSession, plan: ResearchPlan): boolean {
  return s.settings.ask_clarifications && plan.clarifying_questions.length > 0 && s.state.clarification_rounds < s.settings.max_clarification_rounds;
}

function rejected(s: ResearchSession, reason?: string): PlanOutcome {
  s.state.reason = reason ?? 'rejected';
  return 'rejected';
}

function allBlank(answers: string[] | Record<string, string>): boolean {
  const values = Array.isArray(answers) ? answers : Object.values(answers);
  return values.every((a) => typeof a !== 'string' || !a.trim());
}

/** The plan goes to approval as it is; its assumptions say which questions were not answered. */
function skipClarifications(s: ResearchSession, plan: ResearchPlan, why: string): void {
  s.state.clarification_rounds = s.settings.max_clarification_rounds;
  noteUnasked(plan, why);
  s.info(`clarifying questions skipped (${why})`);
}

function noteUnasked(plan: ResearchPlan, why: string): void {
  const note = `Clarifying questions not answered (${why}): ${plan.clarifying_questions.join(' / ')}`;
  if (!plan.assumptions.includes(note)) plan.assumptions.push(note);
}

function recordAnswers(s: ResearchSession, questions: string[], answers: string[] | Record<string, string>): void {
  const list = Array.isArray(answers) ? answers : questions.map((q, i) => answers[q] ?? answers[String(i + 1)] ?? '');
  questions.forEach((question, i) => {
    const answer = (list[i] ?? '').trim();
    if (answer) s.state.clarifications.push({ question, answer });
  });
  s.state.clarification_rounds += 1;
  s.info(`clarifications answered (round ${s.state.clarification_rounds})`);
}

function applyEditedPlan(s: ResearchSession, edited: Partial<ResearchPlan>): void {
  const plan = s.state.plan as ResearchPlan;
  const queries = edited.expanded_queries as Partial<ExpandedQuery>[] | undefined;
  if (queries) {
    plan.expanded_queries = queries.map((q, i) => ({
      query: String(q.query).trim(),
      rationale: typeof q.rationale === 'string' ? q.rationale : 'edited by the user',
      priority: typeof q.priority === 'number' ? q.priority : i + 1,
    }));
  }
  if (Array.isArray(edited.outline)) plan.outline = edited.outline.map((h) => h.trim());
  if (typeof edited.research_brief === 'string') plan.research_brief = edited.research_brief;
  s.emit('AgentOutput', { role: 'user', plan, edited: true });
}
