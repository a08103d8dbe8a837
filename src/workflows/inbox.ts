// What a session accepts from outside, as one table: each message's validator (the rule of when
// and what it may carry) beside the change it makes to state. A message is a signal (for any
// client; an invalid one is logged and ignored) and, where a client wants an answer, a validated
// update that returns the status the session is heading for. Registered before the first await.
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { setHandler } from '@temporalio/workflow';
import type { BudgetLimits, InboxMessage } from '../domain/types';
import type { ResearchStatus } from '../domain/names';
import * as m from './messages';
import { invalidArgument, wrongState } from './refusals';
import type { ResearchSession } from './session';

const MAX_FEEDBACK_CHARS = 10_000;
const MAX_GUIDANCE_CHARS = 4_000;
const MAX_PENDING_GUIDANCE = 20;
const BUDGET_KEYS: (keyof BudgetLimits)[] = ['tokens', 'cost_usd', 'searches', 'fetches', 'wall_seconds'];

interface Rule<A> {
  name: string;
  signal: SignalDefinition<[A]> | SignalDefinition<[A?]>;
  update?: UpdateDefinition<m.Accepted, [A]>;
  validate(s: ResearchSession, args: A): void;
  apply(s: ResearchSession, args: A): void;
  /** The status the session heads for once it acts on the message. */
  next(s: ResearchSession, args: A): ResearchStatus;
}

const rule = <A>(r: Rule<A>): Rule<unknown> => r as unknown as Rule<unknown>;
const post = (s: ResearchSession, message: InboxMessage) => s.state.inbox.push(message);

const RULES: Rule<unknown>[] = [
  rule<m.ApproveArgs | undefined>({
    name: 'approve',
    signal: m.approveSignal,
    update: m.approveUpdate as UpdateDefinition<m.Accepted, [m.ApproveArgs | undefined]>,
    validate: validateApprove,
    apply: (s, a) => post(s, { kind: 'approve', ...(a?.plan ? { plan: a.plan } : {}), ...(a?.panel?.length ? { panel: a.panel.map((p) => p.trim()) } : {}) }),
    next: () => 'running',
  }),
  rule<m.RejectArgs | undefined>({
    name: 'reject',
    signal: m.rejectSignal,
    update: m.rejectUpdate as UpdateDefinition<m.Accepted, [m.RejectArgs | undefined]>,
    validate: (s) => expectStatus(s, ['awaiting_approval', 'awaiting_clarification'], 'awaiting approval'),
    apply: (s, a) => post(s, { kind: 'reject', ...(a?.reason ? { reason: a.reason } : {}) }),
    next: () => 'rejected',
  }),
  rule<m.AnswerClarificationsArgs>({
    name: 'answerClarifications',
    signal: m.answerClarificationsSignal,
    update: m.answerClarificationsUpdate,
    validate: validateAnswers,
    apply: (s, a) => post(s, { kind: 'answer', answers: a.answers }),
    next: () => 'planning',
  }),
  rule<m.RevisePlanArgs>({
    name: 'revisePlan',
    signal: m.revisePlanSignal,
    update: m.revisePlanUpdate,
    validate: validateRevision,
    apply: (s, a) => post(s, { kind: 'revise', feedback: a.feedback.trim() }),
    next: () => 'planning',
  }),
  rule<m.TopicArgs>({
    name: 'provideTopic',
    signal: m.topicSignal,
    update: m.topicUpdate,
    validate: validateTopic,
    apply: (s, a) => post(s, { kind: 'topic', query: a.query.trim() }),
    next: () => 'planning',
  }),
  rule<m.ConfirmArgs>({
    name: 'confirm',
    signal: m.confirmSignal,
    update: m.confirmUpdate,
    validate: validateConfirm,
    // Seed 004's confirmPartialFailure: cancel ends the session like the cancel signal.
    apply: (s, a) => (a.action === 'cancel' ? requestCancel(s, 'cancelled at the partial-failure confirmation') : post(s, { kind: 'confirm', action: a.action })),
    next: (_s, a) => (a.action === 'cancel' ? 'cancelled' : a.action === 'retry' ? 'processing' : 'synthesizing'),
  }),
  rule<m.ReviewArgs>({
    name: 'reviewReport',
    signal: m.reviewReportSignal,
    update: m.reviewReportUpdate,
    validate: validateReview,
    apply: (s, a) => post(s, { kind: 'review', action: a.action, ...(a.feedback?.trim() ? { feedback: a.feedback.trim() } : {}) }),
    next: (_s, a) => (a.action === 'accept' ? 'completed' : a.action === 'reject' ? 'rejected' : 'running'),
  }),
  rule<m.GuidanceArgs>({
    name: 'guidance',
    signal: m.guidanceSignal,
    update: m.guidanceUpdate,
    validate: validateGuidance,
    apply: (s, a) => {
      s.mind.guidance.push({ text: a.text.trim(), received_at: new Date().toISOString() });
      s.emit('Status', { level: 'info', kind: 'guidance', message: `guidance received: ${a.text.trim().slice(0, 200)}` });
    },
    next: (s) => (s.state.status === 'awaiting_guidance' ? 'running' : s.state.status),
  }),
  rule<m.TopUpArgs>({
    name: 'topUp',
    signal: m.topUpSignal,
    update: m.topUpUpdate,
    validate: validateTopUp,
    apply: topUp,
    next: (s) => (s.state.status === 'awaiting_budget' ? (s.state.waiting?.resume_status ?? 'running') : s.state.status),
  }),
  rule<void>({
    name: 'continue',
    signal: m.continueSignal as unknown as SignalDefinition<[void]>,
    validate: () => undefined,
    apply: (s) => {
      if (s.state.status === 'awaiting_guidance') post(s, { kind: 'continue' });
    },
    next: (s) => s.state.status,
  }),
  rule<m.CancelArgs | undefined>({
    name: 'cancel',
    signal: m.cancelSignal,
    update: m.cancelUpdate as UpdateDefinition<m.Accepted, [m.CancelArgs | undefined]>,
    validate: (s) => {
      if (s.isTerminal()) throw wrongState(`research ${s.id} is already ${s.state.status}`);
    },
    apply: (s, a) => requestCancel(s, a?.reason),
    next: () => 'cancelled',
  }),
];

export function registerHandlers(s: ResearchSession): void {
  setHandler(m.stateQuery, () => s.snapshot());
  setHandler(m.reportQuery, () => ({ report_file_id: s.state.panel?.report_file_id ?? s.state.report_file_id, chars: s.state.report_chars }));
  setHandler(m.eventsQuery, (args) => s.state.events.filter((e) => e.seq > (args?.afterSeq ?? 0)));
  for (const r of RULES) {
    setHandler(r.signal as SignalDefinition<[unknown]>, (args: unknown) => {
      try {
        r.validate(s, args);
      } catch (err) {
        s.warn(`ignored ${r.name} signal: ${(err as Error).message}`);
        return;
      }
      r.apply(s, args);
    });
    if (r.update) {
      setHandler(
        r.update as UpdateDefinition<m.Accepted, [unknown]>,
        (args: unknown) => {
          const next = r.next(s, args);
          r.apply(s, args);
          return { status: next };
        },
        { validator: (args: unknown) => r.validate(s, args) },
      );
    }
  }
}

function requestCancel(s: ResearchSession, reason?: string): void {
  if (s.isTerminal() || s.state.cancel_requested) return;
  s.state.cancel_requested = reason ? { reason } : {};
  s.warn(`cancel requested${reason ? `: ${reason}` : ''}`);
  s.researchScope?.cancel();
}

function topUp(s: ResearchSession, amounts: m.TopUpArgs): void {
  const topups = s.mind.budget_topups;
  for (const key of BUDGET_KEYS) {
    const value = amounts[key];
    if (value !== undefined) topups[key] = (topups[key] ?? 0) + value;
  }
  s.state.topups_received = (s.state.topups_received ?? 0) + 1;
  s.info(`budget topped up: ${BUDGET_KEYS.filter((k) => amounts[k] !== undefined).map((k) => `${k} +${amounts[k]}`).join(', ')}`);
}

function expectStatus(s: ResearchSession, wanted: ResearchStatus[], what: string): void {
  if (s.state.cancel_requested) throw wrongState(`research ${s.id} is being cancelled, not ${what}`);
  if (!wanted.includes(s.state.status)) throw wrongState(`research ${s.id} is ${s.state.status}, not ${what}`);
}

function expectRunning(s: ResearchSession): void {
  if (s.isTerminal()) throw wrongState(`research ${s.id} is already ${s.state.status}`);
}

function validateApprove(s: ResearchSession, args?: m.ApproveArgs): void {
  expectStatus(s, ['awaiting_approval'], 'awaiting approval');
  if (args?.panel !== undefined) {
    if (!s.state.panel) throw invalidArgument(`research ${s.id} is not a panel research session: a panel cannot be chosen`, 'panel');
    if (!Array.isArray(args.panel) || args.panel.length === 0 || args.panel.some((p) => typeof p !== 'string' || !p.trim())) throw invalidArgument('a chosen panel needs at least one model', 'panel');
  }
  const queries = args?.plan?.expanded_queries;
  if (queries !== undefined) {
    if (!Array.isArray(queries) || queries.length === 0) throw invalidArgument('an edited plan needs at least one expanded query', 'plan.expanded_queries');
    const max = s.settings.max_sub_queries;
    if (queries.length > max) throw invalidArgument(`an edited plan may have at most ${max} expanded queries (max_sub_queries); it has ${queries.length}`, 'plan.expanded_queries');
    if (queries.some((q) => !q || typeof q.query !== 'string' || !q.query.trim())) throw invalidArgument('every expanded query needs a non-empty "query"', 'plan.expanded_queries');
  }
  const outline = args?.plan?.outline;
  if (outline !== undefined && (!Array.isArray(outline) || outline.some((h) => typeof h !== 'string' || !h.trim()))) {
    throw invalidArgument('an edited outline must be a list of non-empty section titles', 'plan.outline');
  }
}

function validateAnswers(s: ResearchSession, args: m.AnswerClarificationsArgs): void {
  expectStatus(s, ['awaiting_clarification'], 'awaiting clarification answers');
  const answers = args?.answers;
  const values = Array.isArray(answers) ? answers : answers && typeof answers === 'object' ? Object.values(answers) : [];
  // Blank answers (all of them) skip the questions: the plan goes to approval as it is.
  if (values.length === 0) throw invalidArgument('no answers given', 'answers');
  if (values.some((a) => typeof a !== 'string')) throw invalidArgument('every answer must be text (blank to skip a question)', 'answers');
}

function validateRevision(s: ResearchSession, args: m.RevisePlanArgs): void {
  expectStatus(s, ['awaiting_approval'], 'awaiting approval');
  const feedback = args?.feedback;
  if (typeof feedback !== 'string' || !feedback.trim()) throw invalidArgument('revision feedback is empty', 'feedback');
  if (feedback.length > MAX_FEEDBACK_CHARS) throw invalidArgument(`revision feedback is longer than ${MAX_FEEDBACK_CHARS} characters`, 'feedback');
  if (s.state.plan_revisions >= s.settings.max_plan_revisions) {
    throw wrongState(`research ${s.id} has reached its limit of ${s.settings.max_plan_revisions} plan revisions`);
  }
}

function validateTopic(s: ResearchSession, args: m.TopicArgs): void {
  expectStatus(s, ['awaiting_topic'], 'waiting for a research question');
  const query = args?.query;
  if (typeof query !== 'string' || !query.trim()) throw invalidArgument('the research question is empty', 'query');
  if (query.trim().length > 4_000) throw invalidArgument('the research question is longer than 4000 characters', 'query');
}

function validateConfirm(s: ResearchSession, args: m.ConfirmArgs): void {
  expectStatus(s, ['awaiting_confirmation'], 'awaiting confirmation of a partial failure');
  if (!['proceed', 'retry', 'cancel'].includes(args?.action)) throw invalidArgument('action must be proceed, retry or cancel', 'action');
  const answers = Object.values(s.state.panel?.answers ?? {});
  if (args.action === 'proceed' && !answers.some((a) => a.status === 'completed')) throw wrongState('no panel model has answered: retry or cancel');
}

function validateReview(s: ResearchSession, args: m.ReviewArgs): void {
  if (s.state.status !== 'awaiting_review') throw wrongState(`research ${s.id} is ${s.state.status}, not awaiting review`);
  if (!args || !['accept', 'reject', 'feedback'].includes(args.action)) throw invalidArgument('action must be accept, reject or feedback', 'action');
  if (args.action === 'feedback' && (typeof args.feedback !== 'string' || !args.feedback.trim())) throw invalidArgument('feedback is empty', 'feedback');
  if ((args.feedback?.length ?? 0) > MAX_GUIDANCE_CHARS) throw invalidArgument(`feedback is longer than ${MAX_GUIDANCE_CHARS} characters`, 'feedback');
}

function validateGuidance(s: ResearchSession, args: m.GuidanceArgs): void {
  expectRunning(s);
  // Research is over: its report is being checked, or waits for the person's review.
  const status = s.state.status;
  if (status === 'verifying') throw wrongState(`research ${s.id} has finished researching and is checking its report: guidance can no longer change it`);
  if (status === 'awaiting_review') throw wrongState(`research ${s.id} has finished researching and waits for your review: send review feedback to have it research further`);
  if (typeof args?.text !== 'string' || !args.text.trim()) throw invalidArgument('guidance text is empty', 'text');
  if (args.text.length > MAX_GUIDANCE_CHARS) throw invalidArgument(`guidance is longer than ${MAX_GUIDANCE_CHARS} characters`, 'text');
  const pending = s.mind.guidance.filter((g) => !g.applied_to).length;
  if (pending >= MAX_PENDING_GUIDANCE) throw wrongState(`${MAX_PENDING_GUIDANCE} guidance notes are already waiting`);
}

function validateTopUp(s: ResearchSession, args: m.TopUpArgs): void {
  expectRunning(s);
  const given = BUDGET_KEYS.filter((k) => args?.[k] !== undefined);
  if (given.length === 0) throw invalidArgument(`a top-up names at least one of ${BUDGET_KEYS.join(', ')}`, 'tokens');
  for (const k of given) {
    const v = args[k] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalidArgument(`top-up "${k}" must be a positive number`, k);
  }
}
