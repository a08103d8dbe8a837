// The HTTP edge of the message table (src/domain/messages.ts): for each message its route, its
// OpenAPI name and summary, the body it takes and how that body becomes the message's arguments.
// The body is validated here, once; the service sends the arguments as they come. A message
// without its row here does not compile.
import { z } from 'zod';
import type { MessageArgsOf } from '../domain/messages';
import type { MessageName } from '../domain/names';
import type { ResearchPlan } from '../domain/types';
import { planEdit, text } from './route-schemas';

export interface MessageRoute<N extends MessageName = MessageName> {
  /** After /api/research/:id/. */
  path: string;
  operationId: string;
  summary: string;
  /** The body's schema; none: the route takes no body. */
  body?: z.ZodType;
  /** The message's arguments from the validated body. */
  args: (body: unknown) => MessageArgsOf<N>;
}

function route<N extends MessageName, S extends z.ZodType | undefined = undefined>(
  row: Omit<MessageRoute<N>, 'body' | 'args'> & { body?: S; args: (body: S extends z.ZodType ? z.output<S> : undefined) => MessageArgsOf<N> },
): MessageRoute<N> {
  return row as MessageRoute<N>;
}

const reason = z.object({ reason: text(2000).optional() }).strict().nullish();

/** In the order the API lists them. */
export const MESSAGE_ROUTES: { [N in MessageName]: MessageRoute<N> } = {
  approve: route({
    path: 'approve', operationId: 'approveResearch',
    summary: 'Approve a draft (starts it) or a plan awaiting approval, optionally edited (approveResearch); a panel session whose panel came out empty takes its panel here',
    body: z.object({ plan: planEdit.optional(), panel: z.array(text(200)).min(1).max(10).optional() }).strict().nullish(),
    args: (b) => ({ ...(b?.plan ? { plan: b.plan as Partial<ResearchPlan> } : {}), ...(b?.panel?.length ? { panel: b.panel } : {}) }),
  }),
  confirm: route({
    path: 'confirm', operationId: 'confirmPartialFailure',
    summary: 'Answer a partial failure of panel research (confirmPartialFailure): proceed with the answers there are, retry only the failed models, or cancel',
    body: z.object({ action: z.enum(['proceed', 'retry', 'cancel']) }).strict(),
    args: (b) => ({ action: b.action }),
  }),
  provideTopic: route({
    path: 'topic', operationId: 'provideTopic',
    summary: 'Give the research question to a session that was started without one (awaiting_topic)',
    body: z.object({ query: text(4000) }).strict(),
    args: (b) => ({ query: b.query }),
  }),
  reject: route({ path: 'reject', operationId: 'rejectPlan', summary: 'Reject the plan; the session ends', body: reason, args: (b) => ({ reason: b?.reason }) }),
  answerClarifications: route({
    path: 'answer', operationId: 'answerClarifications', summary: 'Answer the clarifying questions, in order or by question',
    body: z.object({ answers: z.union([z.array(z.string().max(4000)).min(1).max(20), z.record(z.string(), z.string().max(4000))]) }).strict(),
    args: (b) => ({ answers: b.answers }),
  }),
  revisePlan: route({ path: 'revise', operationId: 'revisePlan', summary: 'Ask for a revised plan', body: z.object({ feedback: text(4000) }).strict(), args: (b) => ({ feedback: b.feedback }) }),
  guidance: route({ path: 'guide', operationId: 'guideResearch', summary: 'Steer the next phase with guidance', body: z.object({ text: text(4000) }).strict(), args: (b) => ({ text: b.text }) }),
  continue: route({ path: 'continue', operationId: 'continueResearch', summary: 'End a pause for guidance without guidance', args: () => undefined }),
  topUp: route({
    path: 'top-up', operationId: 'topUpBudget', summary: 'Raise the budget of a session (e.g. one waiting in awaiting_budget)',
    body: z.object({
      tokens: z.number().int().positive().max(1e9).optional(),
      cost_usd: z.number().positive().max(1e4).optional(),
      searches: z.number().int().positive().max(1e5).optional(),
      fetches: z.number().int().positive().max(1e5).optional(),
      wall_seconds: z.number().int().positive().max(1e7).optional(),
    }).strict().refine((b) => Object.keys(b).length > 0, 'name at least one of tokens, cost_usd, searches, fetches, wall_seconds'),
    args: (b) => b,
  }),
  reviewReport: route({
    path: 'review', operationId: 'reviewReport', summary: 'Accept, reject or give feedback on the finished report',
    body: z.object({ action: z.enum(['accept', 'reject', 'feedback']), feedback: text(4000).optional() }).strict(),
    args: (b) => b,
  }),
  cancel: route({ path: 'cancel', operationId: 'cancelResearch', summary: 'Cancel a running session (what is done is kept)', body: reason, args: (b) => ({ reason: b?.reason }) }),
};
