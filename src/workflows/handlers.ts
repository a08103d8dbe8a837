// Message handlers of `deepResearch`. Registered before the workflow's first await, so a signal
// that arrives with the start (signal-with-start, or a fast client) is never lost.
import { setHandler } from '@temporalio/workflow';
import {
  answerClarificationsSignal,
  answerClarificationsUpdate,
  approveSignal,
  approveUpdate,
  cancelSignal,
  cancelUpdate,
  confirmSignal,
  confirmUpdate,
  eventsQuery,
  rejectSignal,
  rejectUpdate,
  reportQuery,
  revisePlanSignal,
  revisePlanUpdate,
  stateQuery,
  topicSignal,
  topicUpdate,
  type AnswerClarificationsArgs,
  type ConfirmArgs,
  type TopicArgs,
  type ApproveArgs,
  type CancelArgs,
  type RejectArgs,
  type RevisePlanArgs,
} from './messages';
import { registerOversightHandlers } from './oversight-handlers';
import { invalidArgument, wrongState } from './refusals';
import type { Decision, ResearchSession } from './session';

const MAX_FEEDBACK_CHARS = 10_000;

export function registerHandlers(s: ResearchSession): void {
  setHandler(stateQuery, () => s.snapshot());
  setHandler(reportQuery, () => s.state.report_markdown);
  setHandler(eventsQuery, (args) => s.state.events.filter((e) => e.seq > (args?.afterSeq ?? 0)));

  const onDecision = (decision: () => Decision, validate: () => void, name: string) => ({
    signal: () => {
      try {
        validate();
      } catch (err) {
        s.warn(`ignored ${name} signal: ${(err as Error).message}`);
        return;
      }
      s.inbox.push(decision());
    },
    update: () => {
      s.inbox.push(decision());
      return { status: s.state.status };
    },
  });

  const approve = (args?: ApproveArgs) =>
    onDecision(() => {
      if (args?.panel?.length) s.panelChoice = args.panel.map((p) => p.trim());
      return { kind: 'approve', plan: args?.plan as Record<string, unknown> | undefined };
    }, () => validateApprove(s, args), 'approve');
  setHandler(approveSignal, (args) => approve(args).signal());
  setHandler(approveUpdate, (args) => approve(args).update(), { validator: (args) => validateApprove(s, args) });

  const reject = (args?: RejectArgs) =>
    onDecision(() => ({ kind: 'reject', reason: args?.reason }), () => validateReject(s), 'reject');
  setHandler(rejectSignal, (args) => reject(args).signal());
  setHandler(rejectUpdate, (args) => reject(args).update(), { validator: (_args) => validateReject(s) });

  const answer = (args: AnswerClarificationsArgs) =>
    onDecision(() => ({ kind: 'answer', answers: args.answers }), () => validateAnswers(s, args), 'answerClarifications');
  setHandler(answerClarificationsSignal, (args) => answer(args).signal());
  setHandler(answerClarificationsUpdate, (args) => answer(args).update(), { validator: (args) => validateAnswers(s, args) });

  const revise = (args: RevisePlanArgs) =>
    onDecision(() => ({ kind: 'revise', feedback: args.feedback.trim() }), () => validateRevision(s, args), 'revisePlan');
  setHandler(revisePlanSignal, (args) => revise(args).signal());
  setHandler(revisePlanUpdate, (args) => revise(args).update(), { validator: (args) => validateRevision(s, args) });

  const cancel = (args?: CancelArgs) => {
    if (s.isTerminal() || s.cancelRequested) return;
    s.cancelRequested = { reason: args?.reason };
    s.warn(`cancel requested${args?.reason ? `: ${args.reason}` : ''}`);
    s.researchScope?.cancel();
  };
  setHandler(cancelSignal, (args) => cancel(args));

  // Seed 004's confirmPartialFailure: cancel ends the session like the cancel signal.
  const confirm = (args: ConfirmArgs) => {
    if (args.action === 'cancel') cancel({ reason: 'cancelled at the partial-failure confirmation' });
    else s.panelDecision = args.action;
  };
  setHandler(confirmSignal, (args) => {
    try {
      validateConfirm(s, args);
    } catch (err) {
      s.warn(`ignored confirm signal: ${(err as Error).message}`);
      return;
    }
    confirm(args);
  });
  setHandler(confirmUpdate, (args) => {
    confirm(args);
    return { status: s.state.status };
  }, { validator: (args) => validateConfirm(s, args) });

  const topic = (args: TopicArgs) => {
    s.topic = args.query.trim();
  };
  setHandler(topicSignal, (args) => {
    try {
      validateTopic(s, args);
    } catch (err) {
      s.warn(`ignored provideTopic signal: ${(err as Error).message}`);
      return;
    }
    topic(args);
  });
  setHandler(topicUpdate, (args) => {
    topic(args);
    return { status: s.state.status };
  }, { validator: (args) => validateTopic(s, args) });
  registerOversightHandlers(s);
  setHandler(
    cancelUpdate,
    (args) => {
      cancel(args);
      return { status: s.state.status };
    },
    { validator: (_args) => expectNotTerminal(s) },
  );
}

function expectStatus(s: ResearchSession, wanted: string[], what: string): void {
  if (s.cancelRequested) throw wrongState(`research ${s.id} is being cancelled, not ${what}`);
  if (!wanted.includes(s.state.status)) throw wrongState(`research ${s.id} is ${s.state.status}, not ${what}`);
}

function expectNotTerminal(s: ResearchSession): void {
  if (s.isTerminal()) throw wrongState(`research ${s.id} is already ${s.state.status}`);
}

function validateApprove(s: ResearchSession, args?: ApproveArgs): void {
  expectStatus(s, ['awaiting_approval'], 'awaiting approval');
  if (args?.panel !== undefined) {
    if (!s.state.panel) throw new Error(`research ${s.id} is not a panel research session: a panel cannot be chosen`);
    if (!Array.isArray(args.panel) || args.panel.length === 0 || args.panel.some((p) => typeof p !== 'string' || !p.trim())) throw new Error('a chosen panel needs at least one model');
  }
  const queries = args?.plan?.expanded_queries;
  if (queries === undefined) return;
  if (!Array.isArray(queries) || queries.length === 0) throw invalidArgument('an edited plan needs at least one expanded query', 'plan.expanded_queries');
  const max = s.settings.max_sub_queries;
  if (max !== undefined && queries.length > max) throw invalidArgument(`an edited plan may have at most ${max} expanded queries (max_sub_queries); it has ${queries.length}`, 'plan.expanded_queries');
  for (const q of queries) {
    if (!q || typeof q.query !== 'string' || !q.query.trim()) throw invalidArgument('every expanded query needs a non-empty "query"', 'plan.expanded_queries');
  }
  const outline = args?.plan?.outline;
  if (outline !== undefined && (!Array.isArray(outline) || outline.some((h) => typeof h !== 'string' || !h.trim()))) {
    throw invalidArgument('an edited outline must be a list of non-empty section titles', 'plan.outline');
  }
}

function validateConfirm(s: ResearchSession, args: ConfirmArgs): void {
  expectStatus(s, ['awaiting_confirmation'], 'awaiting confirmation of a partial failure');
  if (!['proceed', 'retry', 'cancel'].includes(args?.action)) throw new Error('action must be proceed, retry or cancel');
  const answers = Object.values(s.state.panel?.answers ?? {});
  if (args.action === 'proceed' && !answers.some((a) => a.status === 'completed')) throw new Error('no panel model has answered: retry or cancel');
}

function validateTopic(s: ResearchSession, args: TopicArgs): void {
  expectStatus(s, ['awaiting_topic'], 'waiting for a research question');
  const query = args?.query;
  if (typeof query !== 'string' || !query.trim()) throw new Error('the research question is empty');
  if (query.trim().length > 4_000) throw new Error('the research question is longer than 4000 characters');
}

function validateReject(s: ResearchSession): void {
  expectStatus(s, ['awaiting_approval', 'awaiting_clarification'], 'awaiting approval');
}

function validateAnswers(s: ResearchSession, args: AnswerClarificationsArgs): void {
  expectStatus(s, ['awaiting_clarification'], 'awaiting clarification answers');
  const answers = args?.answers;
  const values = Array.isArray(answers) ? answers : answers && typeof answers === 'object' ? Object.values(answers) : [];
  // Blank answers (all of them) skip the questions: the plan goes to approval as it is.
  if (values.length === 0) throw invalidArgument('no answers given', 'answers');
  if (values.some((a) => typeof a !== 'string')) throw invalidArgument('every answer must be text (blank to skip a question)', 'answers');
}

function validateRevision(s: ResearchSession, args: RevisePlanArgs): void {
  expectStatus(s, ['awaiting_approval'], 'awaiting approval');
  const feedback = args?.feedback;
  if (typeof feedback !== 'string' || !feedback.trim()) throw invalidArgument('revision feedback is empty', 'feedback');
  if (feedback.length > MAX_FEEDBACK_CHARS) throw invalidArgument(`revision feedback is longer than ${MAX_FEEDBACK_CHARS} characters`, 'feedback');
  if (s.state.plan_revisions >= s.settings.max_plan_revisions) {
    throw wrongState(`research ${s.id} has reached its limit of ${s.settings.max_plan_revisions} plan revisions`);
  }
}
