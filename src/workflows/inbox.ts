// The handlers of what a session accepts from outside, one per row of the message table
// (src/domain/messages.ts): each checks what the message carries (the table has already checked
// the status) and makes its change to state. A message is a signal (for any client; an invalid
// one is logged and ignored) and a validated update of the same name that returns the status the
// session is heading for. Registered before the first await.
import { defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import { type ApproveArgs, type AnswerClarificationsArgs, type ConfirmArgs, type GuidanceArgs, MAX_QUERY_CHARS, type MessageArgsOf, MESSAGE_NAMES, MESSAGE_ROWS, MESSAGES, type MessageName, refusal, type ReviewArgs, type RevisePlanArgs, type TopUpArgs } from '../domain/messages';
import type { ResearchStatus } from '../domain/names';
import type { BudgetLimits, InboxMessage } from '../domain/types';
import { eventsQuery, reportQuery, stateQuery, type Accepted } from '../contract/queries';
import { invalidArgument, wrongState } from './refusals';
import type { ResearchSession } from './session';

// The longest text each message carries is its row's, which every edge (route, tool, command) holds to too.
const MAX_FEEDBACK_CHARS = MESSAGES.revisePlan.args.feedback.max;
const MAX_GUIDANCE_CHARS = MESSAGES.guidance.args.text.max;
const MAX_REVIEW_CHARS = MESSAGES.reviewReport.args.feedback.max;
const MAX_PENDING_GUIDANCE = 20;
const BUDGET_KEYS: (keyof BudgetLimits)[] = ['tokens', 'cost_usd', 'searches', 'fetches', 'wall_seconds'];

interface Handler<A> {
  /** What the message carries, checked (the status is the table's to check). */
  validate?(s: ResearchSession, args: A): void;
  apply(s: ResearchSession, args: A): void;
  /** The status the session heads for once it acts on the message, where the table's row says `depends`. */
  next?(s: ResearchSession, args: A): ResearchStatus;
}

const post = (s: ResearchSession, message: InboxMessage) => s.state.inbox.push(message);

const HANDLERS: { [N in MessageName]: Handler<MessageArgsOf<N>> } = {
  provideTopic: {
    validate: (_s, a) => {
      const query = a?.query;
      if (typeof query !== 'string' || !query.trim()) throw invalidArgument('the research question is empty', 'query');
      if (query.trim().length > MAX_QUERY_CHARS) throw invalidArgument(`the research question is longer than ${MAX_QUERY_CHARS} characters`, 'query');
    },
    apply: (s, a) => post(s, { kind: 'topic', query: a.query.trim() }),
  },
  answerClarifications: { validate: validateAnswers, apply: (s, a) => post(s, { kind: 'answer', answers: a.answers }) },
  approve: {
    validate: validateApprove,
    apply: (s, a) => post(s, { kind: 'approve', ...(a?.plan ? { plan: a.plan } : {}), ...(a?.panel?.length ? { panel: a.panel.map((p) => p.trim()) } : {}) }),
  },
  revisePlan: { validate: validateRevision, apply: (s, a) => post(s, { kind: 'revise', feedback: a.feedback.trim() }) },
  reject: { apply: (s, a) => post(s, { kind: 'reject', ...(a?.reason ? { reason: a.reason } : {}) }) },
  confirm: {
    validate: validateConfirm,
    // Seed 004's confirmPartialFailure: cancel ends the session like the cancel signal.
    apply: (s, a) => (a.action === 'cancel' ? requestCancel(s, 'cancelled at the partial-failure confirmation') : post(s, { kind: 'confirm', action: a.action })),
    next: (_s, a) => (a.action === 'cancel' ? 'cancelled' : a.action === 'retry' ? 'processing' : 'synthesizing'),
  },
  guidance: {
    validate: validateGuidance,
    apply: (s, a) => {
      s.mind.guidance.push({ text: a.text.trim(), received_at: new Date().toISOString() });
      s.emit('Status', { level: 'info', kind: 'guidance', message: `guidance received: ${a.text.trim().slice(0, 200)}` });
    },
    next: (s) => (s.state.status === 'awaiting_guidance' ? 'running' : s.state.status),
  },
  continue: { apply: (s) => post(s, { kind: 'continue' }) },
  topUp: {
    validate: validateTopUp,
    apply: topUp,
    next: (s) => (s.state.status === 'awaiting_budget' ? (s.state.waiting?.resume_status ?? 'running') : s.state.status),
  },
  reviewReport: {
    validate: validateReview,
    apply: (s, a) => post(s, { kind: 'review', action: a.action, ...(a.feedback?.trim() ? { feedback: a.feedback.trim() } : {}) }),
    next: (_s, a) => (a.action === 'accept' ? 'completed' : a.action === 'reject' ? 'rejected' : 'running'),
  },
  cancel: { apply: (s, a) => requestCancel(s, a?.reason), next: () => 'cancelled' },
};

/** The table's check first (the status accepts the message), then the handler's own. */
function check(s: ResearchSession, name: MessageName, args: unknown): void {
  const refused = refusal(name, s.id, s.state.status);
  if (refused) throw wrongState(refused);
  // A session being cancelled takes nothing more but the cancel (which changes nothing then).
  if (s.state.cancel_requested && name !== 'cancel') throw wrongState(`research ${s.id} is being cancelled`);
  (HANDLERS[name] as Handler<unknown>).validate?.(s, args);
}

export function registerHandlers(s: ResearchSession): void {
  setHandler(stateQuery, () => s.snapshot());
  setHandler(reportQuery, () => ({ report_file_id: s.state.panel?.report_file_id ?? s.state.report_file_id, chars: s.state.report_chars }));
  setHandler(eventsQuery, (args) => s.state.events.filter((e) => e.seq > (args?.afterSeq ?? 0)));
  for (const name of MESSAGE_NAMES) {
    const handler = HANDLERS[name] as Handler<unknown>;
    setHandler(defineSignal<[unknown]>(name), (args: unknown) => {
      try {
        check(s, name, args);
      } catch (err) {
        s.warn(`ignored ${name} signal: ${(err as Error).message}`);
        return;
      }
      handler.apply(s, args);
    });
    setHandler(
      defineUpdate<Accepted, [unknown]>(name),
      (args: unknown) => {
        const leadsTo = MESSAGE_ROWS[name].leadsTo;
        const next = leadsTo === 'depends' ? (handler.next as NonNullable<Handler<unknown>['next']>)(s, args) : leadsTo;
        handler.apply(s, args);
        return { status: next };
      },
      { validator: (args: unknown) => check(s, name, args) },
    );
  }
}

function requestCancel(s: ResearchSession, reason?: string): void {
  if (s.isTerminal() || s.state.cancel_requested) return;
  s.state.cancel_requested = reason ? { reason } : {};
  s.warn(`cancel requested${reason ? `: ${reason}` : ''}`);
  s.researchScope?.cancel();
}

function topUp(s: ResearchSession, amounts: TopUpArgs): void {
  const topups = s.mind.budget_topups;
  for (const key of BUDGET_KEYS) {
    const value = amounts[key];
    if (value !== undefined) topups[key] = (topups[key] ?? 0) + value;
  }
  s.state.topups_received = (s.state.topups_received ?? 0) + 1;
  s.info(`budget topped up: ${BUDGET_KEYS.filter((k) => amounts[k] !== undefined).map((k) => `${k} +${amounts[k]}`).join(', ')}`);
}

function validateApprove(s: ResearchSession, args?: ApproveArgs): void {
  if (args?.panel !== undefined) {
    // What the session is, not what was sent, refuses these two (a valid request, a 409).
    if (!s.state.panel) throw wrongState(`research ${s.id} is not a panel research session: a panel cannot be chosen`);
    if (!Array.isArray(args.panel) || args.panel.length === 0 || args.panel.some((p) => typeof p !== 'string' || !p.trim())) throw invalidArgument('a chosen panel needs at least one model', 'panel');
  }
  const queries = args?.plan?.expanded_queries;
  if (queries !== undefined) {
    if (!Array.isArray(queries) || queries.length === 0) throw invalidArgument('an edited plan needs at least one expanded query', 'plan.expanded_queries');
    const max = s.settings.max_sub_queries;
    if (queries.length > max) throw wrongState(`an edited plan may have at most ${max} expanded queries (max_sub_queries); it has ${queries.length}`);
    if (queries.some((q) => !q || typeof q.query !== 'string' || !q.query.trim())) throw invalidArgument('every expanded query needs a non-empty "query"', 'plan.expanded_queries');
  }
  const outline = args?.plan?.outline;
  if (outline !== undefined && (!Array.isArray(outline) || outline.some((h) => typeof h !== 'string' || !h.trim()))) {
    throw invalidArgument('an edited outline must be a list of non-empty section titles', 'plan.outline');
  }
}

function validateAnswers(s: ResearchSession, args: AnswerClarificationsArgs): void {
  const answers = args?.answers;
  const values = Array.isArray(answers) ? answers : answers && typeof answers === 'object' ? Object.values(answers) : [];
  // Blank answers (all of them) skip the questions: the plan goes to approval as it is.
  if (values.length === 0) throw invalidArgument('no answers given', 'answers');
  if (values.some((a) => typeof a !== 'string')) throw invalidArgument('every answer must be text (blank to skip a question)', 'answers');
}

function validateRevision(s: ResearchSession, args: RevisePlanArgs): void {
  const feedback = args?.feedback;
  if (typeof feedback !== 'string' || !feedback.trim()) throw invalidArgument('revision feedback is empty', 'feedback');
  if (feedback.length > MAX_FEEDBACK_CHARS) throw invalidArgument(`revision feedback is longer than ${MAX_FEEDBACK_CHARS} characters`, 'feedback');
  if (s.state.plan_revisions >= s.settings.max_plan_revisions) {
    throw wrongState(`research ${s.id} has reached its limit of ${s.settings.max_plan_revisions} plan revisions`);
  }
}

function validateConfirm(s: ResearchSession, args: ConfirmArgs): void {
  if (!['proceed', 'retry', 'cancel'].includes(args?.action)) throw invalidArgument('action must be proceed, retry or cancel', 'action');
  const answers = Object.values(s.state.panel?.answers ?? {});
  if (args.action === 'proceed' && !answers.some((a) => a.status === 'completed')) throw wrongState('no panel model has answered: retry or cancel');
}

function validateReview(s: ResearchSession, args: ReviewArgs): void {
  if (!args || !['accept', 'reject', 'feedback'].includes(args.action)) throw invalidArgument('action must be accept, reject or feedback', 'action');
  if (args.action === 'feedback' && (typeof args.feedback !== 'string' || !args.feedback.trim())) throw invalidArgument('feedback is empty', 'feedback');
  if ((args.feedback?.length ?? 0) > MAX_REVIEW_CHARS) throw invalidArgument(`feedback is longer than ${MAX_REVIEW_CHARS} characters`, 'feedback');
}

function validateGuidance(s: ResearchSession, args: GuidanceArgs): void {
  if (typeof args?.text !== 'string' || !args.text.trim()) throw invalidArgument('guidance text is empty', 'text');
  if (args.text.length > MAX_GUIDANCE_CHARS) throw invalidArgument(`guidance is longer than ${MAX_GUIDANCE_CHARS} characters`, 'text');
  const pending = s.mind.guidance.filter((g) => !g.applied_to).length;
  if (pending >= MAX_PENDING_GUIDANCE) throw wrongState(`${MAX_PENDING_GUIDANCE} guidance notes are already waiting`);
}

function validateTopUp(s: ResearchSession, args: TopUpArgs): void {
  const given = BUDGET_KEYS.filter((k) => args?.[k] !== undefined);
  if (given.length === 0) throw invalidArgument(`a top-up names at least one of ${BUDGET_KEYS.join(', ')}`, 'tokens');
  for (const k of given) {
    const v = args[k] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalidArgument(`top-up "${k}" must be a positive number`, k);
  }
}
