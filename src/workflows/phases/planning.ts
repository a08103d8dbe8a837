// Planning and the human checkpoint. Nothing here can reach the web: the only activities this
// module can reach are the planner model and the user's own documents (a local-only lookup), so
// web search, fetch and retrieval are structurally impossible before approval.
import { workflowInfo } from '@temporalio/workflow';
import { planningGate } from '../../research/gates';
import type { ExpandedQuery, InboxMessage, ResearchPlan } from '../../domain/types';
import { knowledge, plannerOn } from '../activities';
import { planningTaskQueue } from '../../contract/names';
import { type Answer, endAs, goTo, type Next, researchFrom, waitFor } from '../runs';
import { errorMessage, type ResearchSession } from '../session';
import { afterPhase, retryByRule } from './oversight';
import { startPanel } from './panel';
import { callModel, chooseProviders } from './providers';

/** Seed 003's ask_topic: a session started without a question asks for one and waits for it. */
export async function askForTopic(s: ResearchSession, answer: Answer | undefined): Promise<Next> {
  if (answer?.to !== 'topic') {
    s.emit('Status', { level: 'info', kind: 'ask_topic', message: 'no research question was given: what should be researched?' });
    return waitFor('topic');
  }
  if (answer.message?.kind !== 'topic') return endAs('expired', `no research question within ${s.settings.approval_timeout_seconds} s`);
  const query = answer.message.query;
  s.state.initial_query = query;
  s.info(`research question: ${query.slice(0, 200)}`);
  return goTo({ at: 'plan' });
}

/**
 * The plan step: the providers settled, the plan drafted once and checked by its gate; then the
 * person's answer to the wait before (clarifications, a revision, the approval or a rejection), and
 * what the plan waits for next: clarifications, the approval, or nothing (auto_approve).
 */
export async function planWithUser(s: ResearchSession, answer: Answer | undefined): Promise<Next> {
  const st = s.state;
  if (!st.providers) await settleProviders(s);
  if (!st.plan) {
    await draftPlan(s);
    await checkPlan(s);
  }
  if (answer?.expired) return endAs('expired', `no approval within ${s.settings.approval_timeout_seconds} s`);
  const message = answer?.message;
  if (message?.kind === 'reject') return endAs('rejected', message.reason ?? 'rejected');
  if (message?.kind === 'approve') return approved(s, message);
  if (message?.kind === 'revise') {
    st.plan_revisions += 1;
    st.plan_feedback.push(message.feedback);
    s.info(`revising the plan (revision ${st.plan_revisions})`);
    await draftPlan(s);
  }
  const plan = st.plan as ResearchPlan;
  if (message?.kind === 'answer') {
    if (allBlank(message.answers)) skipClarifications(s, plan, 'the user skipped them');
    else {
      recordAnswers(s, plan.clarifying_questions, message.answers);
      await draftPlan(s);
    }
  }
  return nextForPlan(s);
}

/** What the plan as it stands waits for: answers to its clarifying questions, or the approval (none when unattended). */
function nextForPlan(s: ResearchSession): Next {
  const st = s.state;
  const plan = st.plan as ResearchPlan;
  if (wantsClarification(s, plan)) return waitFor('clarification');
  // Seed 004: an empty panel is the user's to choose, so even an unattended run waits for approval.
  const unattended = s.settings.auto_approve && !(st.panel && st.panel.models.length === 0);
  if (unattended) {
    if (plan.clarifying_questions.length && !s.settings.ask_clarifications && st.clarifications.length === 0) noteUnasked(plan, 'unattended run');
    if (s.input.approved_plan) applyEditedPlan(s, s.input.approved_plan);
    s.info('plan approved automatically (auto_approve)');
    return researchFrom('GATHERING');
  }
  // Questions the planner asked that nobody was asked: the plan goes to approval saying so.
  if (plan.clarifying_questions.length && st.clarifications.length === 0 && st.clarification_rounds === 0) noteUnasked(plan, 'not asked: ask_clarifications is off');
  return waitFor('approval');
}

function approved(s: ResearchSession, answer: Extract<InboxMessage, { kind: 'approve' }>): Next {
  if (answer.plan) applyEditedPlan(s, answer.plan);
  if (answer.panel?.length) {
    // The panel the user chose replaces the one that came out empty: its providers are settled again.
    s.state.chosen_panel = answer.panel;
    s.state.providers = undefined;
  }
  s.info('plan approved');
  return researchFrom('GATHERING');
}

/** Model and search chains, once; a panel session also settles its panel. */
async function settleProviders(s: ResearchSession): Promise<void> {
  s.emit('AgentInput', { role: 'user', query: s.state.initial_query });
  await chooseProviders(s);
  if ((s.settings.panel?.length ?? 0) > 0 && s.state.providers) {
    startPanel(s, s.state.providers);
    if (!s.state.panel?.models.length && s.settings.auto_approve) s.warn('no panel model has its key: the plan waits for approval, where you choose the panel');
  }
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
  const st = s.state;
  await lookUpLocalKnowledge(s);
  s.emit('AgentInput', { role: 'planner', query: st.initial_query, clarifications: st.clarifications, feedback: st.plan_feedback });
  const out = await callModel(s, 'planner', (choice) =>
    s.tool(
      'decompose_query',
      { query: st.initial_query, clarifications: st.clarifications.length, feedback: st.plan_feedback.length, model: choice },
      () =>
        plannerOn(planningTaskQueue(workflowInfo().taskQueue)).decomposeQuery({
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

function wantsClarification(s: ResearchSession, plan: ResearchPlan): boolean {
  return s.settings.ask_clarifications && plan.clarifying_questions.length > 0 && s.state.clarification_rounds < s.settings.max_clarification_rounds;
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
