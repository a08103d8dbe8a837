// What a person (or any client) can send a session, as one table: each message's name (also the
// Temporal signal's and update's), what it carries, the statuses that accept it and where it
// leads. The workflow registers a signal and a validated update per row and checks the status
// against the row before anything else (src/workflows/inbox.ts, one handler per row); the client
// sends any row by its name; the snapshot carries the names the session accepts now (`accepts`),
// so front ends keep no list of their own. A new message is its name (names.ts), its row here
// and its handler.
import { isTerminal, MESSAGE_NAMES, type MessageName, type ResearchStatus } from './names';
import type { WaitKind } from './steps';
import type { ResearchPlan } from './types';

export interface ApproveArgs {
  plan?: Partial<ResearchPlan>;
  /** Panel research whose panel came out empty: the models to use ("provider:model" or words). */
  panel?: string[];
}
export interface RejectArgs {
  reason?: string;
}
export interface AnswerClarificationsArgs {
  answers: string[] | Record<string, string>;
}
export interface RevisePlanArgs {
  feedback: string;
}
export interface CancelArgs {
  reason?: string;
}
export interface GuidanceArgs {
  text: string;
}
export interface TopUpArgs {
  tokens?: number;
  cost_usd?: number;
  searches?: number;
  fetches?: number;
  wall_seconds?: number;
}
export interface ReviewArgs {
  action: 'accept' | 'reject' | 'feedback';
  feedback?: string;
}
/** Seed 004's confirmPartialFailure: some panel models failed after their retries. */
export interface ConfirmArgs {
  action: 'proceed' | 'retry' | 'cancel';
}
/** The question for a session started without one (seed 003's ask_topic). */
export interface TopicArgs {
  query: string;
}

/** What each message carries (undefined: it may come with nothing). */
export interface MessageArgs {
  provideTopic: TopicArgs;
  answerClarifications: AnswerClarificationsArgs;
  approve: ApproveArgs | undefined;
  revisePlan: RevisePlanArgs;
  reject: RejectArgs | undefined;
  confirm: ConfirmArgs;
  guidance: GuidanceArgs;
  continue: undefined;
  topUp: TopUpArgs;
  reviewReport: ReviewArgs;
  cancel: CancelArgs | undefined;
}

/** Every message has its arguments above (a name without them does not compile). */
type EveryMessage<T extends Record<MessageName, unknown>> = T;
export type MessageArgsOf<N extends MessageName> = EveryMessage<MessageArgs>[N];

/** Every status before the end. */
const LIVE = 'live';

export interface MessageRow {
  /** The statuses that accept it; `live`: every status before the end, less `except`. */
  accepts: readonly ResearchStatus[] | typeof LIVE;
  /** Statuses of a live session that refuse it, each with why ("research x " + why). */
  except?: Partial<Record<ResearchStatus, string>>;
  /** How a refusal names what the session is not ("research x is running, not awaiting approval"). */
  awaiting?: string;
  /** The wait for a person it answers, if any (src/domain/steps.ts). */
  answers?: WaitKind;
  /** The status the session heads for once it acts on the message (`depends`: on what it carries or the session's wait). */
  leadsTo: ResearchStatus | 'depends';
  /** One line for people: what the message does. */
  summary: string;
}

export const MESSAGES: Record<MessageName, MessageRow> = {
  provideTopic: { accepts: ['awaiting_topic'], answers: 'topic', awaiting: 'waiting for a research question', leadsTo: 'planning', summary: 'give the question to a session started without one' },
  answerClarifications: { accepts: ['awaiting_clarification'], answers: 'clarification', awaiting: 'awaiting clarification answers', leadsTo: 'planning', summary: 'answer the clarifying questions, in order or by question (blank answers skip them)' },
  approve: { accepts: ['awaiting_approval'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'running', summary: 'approve the plan, optionally edited (a panel that came out empty: its models)' },
  revisePlan: { accepts: ['awaiting_approval'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'planning', summary: 'ask for a revised plan, with feedback' },
  reject: { accepts: ['awaiting_approval', 'awaiting_clarification'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'rejected', summary: 'reject the plan: the session ends' },
  confirm: { accepts: ['awaiting_confirmation'], answers: 'confirmation', awaiting: 'awaiting confirmation of a partial failure', leadsTo: 'depends', summary: 'answer a partial failure of panel research: proceed, retry the failed models, or cancel' },
  guidance: {
    accepts: LIVE,
    except: {
      verifying: 'has finished researching and is checking its report: guidance can no longer change it',
      awaiting_review: 'has finished researching and waits for your review: send review feedback to have it research further',
    },
    leadsTo: 'depends', summary: 'steer the next phase with guidance' },
  continue: { accepts: ['awaiting_guidance'], answers: 'guidance', awaiting: 'awaiting guidance', leadsTo: 'running', summary: 'end a pause for guidance without guidance' },
  topUp: { accepts: LIVE, leadsTo: 'depends', summary: 'raise the budget (a session waiting for a top-up goes on)' },
  reviewReport: { accepts: ['awaiting_review'], answers: 'review', awaiting: 'awaiting review', leadsTo: 'depends', summary: 'accept, reject or give feedback on the finished report' },
  cancel: { accepts: LIVE, leadsTo: 'cancelled', summary: 'cancel the session (what is done is kept)' },
};

/** Whether a session in `status` accepts the message (its handler may still refuse what it carries). */
export function accepts(name: MessageName, status: ResearchStatus): boolean {
  const row = MESSAGES[name];
  if (row.accepts === LIVE) return !isTerminal(status) && row.except?.[status] === undefined;
  return row.accepts.includes(status);
}

/** Why a session in `status` refuses the message (undefined: it accepts it). */
export function refusal(name: MessageName, id: string, status: ResearchStatus): string | undefined {
  if (accepts(name, status)) return undefined;
  const row = MESSAGES[name];
  const why = row.except?.[status];
  if (why) return `research ${id} ${why}`;
  return row.awaiting ? `research ${id} is ${status}, not ${row.awaiting}` : `research ${id} is already ${status}`;
}

/** The messages a session in `status` accepts now; none once it is being cancelled. */
export function acceptedNow(status: ResearchStatus, cancelling = false): MessageName[] {
  return cancelling ? [] : MESSAGE_NAMES.filter((name) => accepts(name, status));
}

/** Whether a session that accepts these waits for a person's answer to its question, plan, panel or report (a pause for guidance and a spent budget are steered, not answered). */
export function waitsForAnswer(accepted: readonly string[]): boolean {
  return accepted.some((name) => {
    const wait = MESSAGES[name as MessageName]?.answers;
    return wait !== undefined && wait !== 'guidance';
  });
}
