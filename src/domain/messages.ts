// What a person (or any client) can send a session, as one table: each message's name (also the
// Temporal signal's and update's), what it carries, the statuses that accept it, where it leads,
// and how each edge offers it. Every edge is built from its row: the workflow registers a signal
// and a validated update per row and checks the status against the row before the handler checks
// what the message carries (src/workflows/inbox.ts, one handler per row); the client sends any row
// by its name; the HTTP route, the MCP tool (where the row names one) and the CLI command are made
// from the row's `args`, `http`, `tool` and `cli` (src/server/message-routes.ts,
// src/cli/steering.ts); the snapshot carries the names the session accepts now (`accepts`), so
// front ends keep no list of their own. A new message is its row here and its handler.
import { isTerminal, type ResearchStatus } from './names';
import type { WaitKind } from './steps';
import type { ResearchPlan } from './plan';

/**
 * Where the command line takes an argument: after the research id ("<text>", "[text]",
 * "<items...>"), or as an option ("--reason <text>"); with its help line.
 */
export type CliPlace = string | readonly [syntax: string, help: string];

/** One thing a message carries, as every edge reads it. */
export type ArgSpec = { readonly optional?: true; readonly cli: CliPlace } & (
  | { readonly kind: 'text'; readonly max: number } // trimmed, not empty
  | { readonly kind: 'question' } // a research question: trimmed, not empty, at most MAX_QUERY_CHARS
  | { readonly kind: 'choice'; readonly of: readonly [string, ...string[]] }
  | { readonly kind: 'amount'; readonly max: number; readonly whole?: true } // a positive number
  | { readonly kind: 'answers' } // text per clarifying question, in order or by question (blank skips one)
  | { readonly kind: 'plan' } // an edited plan (JSON; a file at the terminal)
  | { readonly kind: 'models' } // "provider:model" items or plain words (comma-separated at the terminal)
);

/** The longest research question, in characters, wherever it comes in. */
export const MAX_QUERY_CHARS = 4_000;

/** Every status before the end. */
const LIVE = 'live';

export interface MessageRow {
  /** The statuses that accept it; `live`: every status before the end, less `except`. */
  readonly accepts: readonly ResearchStatus[] | typeof LIVE;
  /** Statuses of a live session that refuse it, each with why ("research x " + why). */
  readonly except?: Partial<Record<ResearchStatus, string>>;
  /** How a refusal names what the session is not ("research x is running, not awaiting approval"). */
  readonly awaiting?: string;
  /** The wait for a person it answers, if any (src/domain/steps.ts). */
  readonly answers?: WaitKind;
  /** The status the session heads for once it acts on the message (`depends`: on what it carries or the session's wait). */
  readonly leadsTo: ResearchStatus | 'depends';
  /** One line for people: what the message does. */
  readonly summary: string;
  /** What it carries, by field (none: nothing). */
  readonly args?: Readonly<Record<string, ArgSpec>>;
  /** It may come with nothing at all (its fields are all optional). */
  readonly bare?: true;
  /** Its fields are all optional, but it names at least one. */
  readonly oneOf?: true;
  /** POST /api/research/:id/<path>, with its OpenAPI name and summary. */
  readonly http: { readonly path: string; readonly operationId: string; readonly summary: string };
  /** `deep-research <command> <researchId> …`, and what it prints once the session accepted it ({field}: the value given). */
  readonly cli: { readonly command: string; readonly description?: string; readonly done: string };
  /** The MCP tool that sends it, for messages a chat client answers with. */
  readonly tool?: { readonly name: string; readonly description: string };
}

const reason = { kind: 'text', max: 2000, optional: true, cli: '--reason <text>' } as const;

export const MESSAGES = {
  provideTopic: {
    accepts: ['awaiting_topic'], answers: 'topic', awaiting: 'waiting for a research question', leadsTo: 'planning', summary: 'give the question to a session started without one',
    args: { query: { kind: 'question', cli: '<question>' } },
    http: { path: 'topic', operationId: 'provideTopic', summary: 'Give the research question to a session that was started without one (awaiting_topic)' },
    cli: { command: 'topic', description: 'give the question to a session started without one (awaiting_topic)', done: 'question given' },
  },
  answerClarifications: {
    accepts: ['awaiting_clarification'], answers: 'clarification', awaiting: 'awaiting clarification answers', leadsTo: 'planning', summary: 'answer the clarifying questions, in order or by question (blank answers skip them)',
    args: { answers: { kind: 'answers', cli: ['<answers...>', 'one answer per clarifying question, in order'] } },
    http: { path: 'answer', operationId: 'answerClarifications', summary: 'Answer the clarifying questions, in order or by question' },
    cli: { command: 'answer', done: 'answers sent' },
    tool: { name: 'answer', description: 'Answer the clarifying questions of a session awaiting clarification, in order (or by question).' },
  },
  approve: {
    accepts: ['awaiting_approval'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'running', summary: 'approve the plan, optionally edited (a panel that came out empty: its models)',
    args: {
      plan: { kind: 'plan', optional: true, cli: ['--plan <file>', 'an edited plan (JSON) to approve instead'] },
      panel: { kind: 'models', optional: true, cli: ['--panel <models>', 'the panel, for a panel session whose panel came out empty'] },
    },
    bare: true,
    http: {
      path: 'approve', operationId: 'approveResearch',
      summary: 'Approve a draft (starts it) or a plan awaiting approval, optionally edited (approveResearch); a panel session whose panel came out empty takes its panel here',
    },
    cli: { command: 'approve', done: 'approved' },
    tool: { name: 'approve', description: 'Approve the plan of a session awaiting approval (or start a draft), optionally edited.' },
  },
  revisePlan: {
    accepts: ['awaiting_approval'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'planning', summary: 'ask for a revised plan, with feedback',
    args: { feedback: { kind: 'text', max: 4000, cli: '<feedback>' } },
    http: { path: 'revise', operationId: 'revisePlan', summary: 'Ask for a revised plan' },
    cli: { command: 'revise', done: 'revising the plan' },
  },
  reject: {
    accepts: ['awaiting_approval', 'awaiting_clarification'], answers: 'approval', awaiting: 'awaiting approval', leadsTo: 'rejected', summary: 'reject the plan: the session ends',
    args: { reason }, bare: true,
    http: { path: 'reject', operationId: 'rejectPlan', summary: 'Reject the plan; the session ends' },
    cli: { command: 'reject', done: 'rejected' },
  },
  confirm: {
    accepts: ['awaiting_confirmation'], answers: 'confirmation', awaiting: 'awaiting confirmation of a partial failure', leadsTo: 'depends', summary: 'answer a partial failure of panel research: proceed, retry the failed models, or cancel',
    args: { action: { kind: 'choice', of: ['proceed', 'retry', 'cancel'], cli: ['<action>', 'proceed (synthesize the answers there are), retry (only the failed models) or cancel'] } },
    http: {
      path: 'confirm', operationId: 'confirmPartialFailure',
      summary: 'Answer a partial failure of panel research (confirmPartialFailure): proceed with the answers there are, retry only the failed models, or cancel',
    },
    cli: { command: 'confirm', description: 'answer a partial failure of panel research (awaiting_confirmation)', done: '{action}' },
    tool: { name: 'confirm', description: 'Answer a partial failure of panel research (status awaiting_confirmation): proceed with the answers there are, retry the failed models, or cancel.' },
  },
  guidance: {
    accepts: LIVE,
    except: {
      verifying: 'has finished researching and is checking its report: guidance can no longer change it',
      awaiting_review: 'has finished researching and waits for your review: send review feedback to have it research further',
    },
    leadsTo: 'depends', summary: 'steer the next phase with guidance',
    args: { text: { kind: 'text', max: 4000, cli: '<guidance>' } },
    http: { path: 'guide', operationId: 'guideResearch', summary: 'Steer the next phase with guidance' },
    cli: { command: 'guide', description: 'steer the next phase of a running session', done: 'guidance sent' },
  },
  continue: {
    accepts: ['awaiting_guidance'], answers: 'guidance', awaiting: 'awaiting guidance', leadsTo: 'running', summary: 'end a pause for guidance without guidance',
    http: { path: 'continue', operationId: 'continueResearch', summary: 'End a pause for guidance without guidance' },
    cli: { command: 'continue', description: 'end a pause_for_guidance wait', done: 'continuing' },
  },
  topUp: {
    accepts: LIVE, leadsTo: 'depends', summary: 'raise the budget (a session waiting for a top-up goes on)',
    args: {
      tokens: { kind: 'amount', whole: true, max: 1e9, optional: true, cli: '--tokens <n>' },
      cost_usd: { kind: 'amount', max: 1e4, optional: true, cli: '--cost <usd>' },
      searches: { kind: 'amount', whole: true, max: 1e5, optional: true, cli: '--searches <n>' },
      fetches: { kind: 'amount', whole: true, max: 1e5, optional: true, cli: '--fetches <n>' },
      wall_seconds: { kind: 'amount', whole: true, max: 1e7, optional: true, cli: '--seconds <n>' },
    },
    oneOf: true,
    http: { path: 'top-up', operationId: 'topUpBudget', summary: 'Raise the budget of a session (e.g. one waiting in awaiting_budget)' },
    cli: { command: 'top-up', description: 'raise a session budget, e.g. --cost 0.5 --searches 20', done: 'budget topped up' },
  },
  reviewReport: {
    accepts: ['awaiting_review'], answers: 'review', awaiting: 'awaiting review', leadsTo: 'depends', summary: 'accept, reject or give feedback on the finished report',
    args: {
      action: { kind: 'choice', of: ['accept', 'reject', 'feedback'], cli: ['<action>', 'accept, reject or feedback'] },
      feedback: { kind: 'text', max: 4000, optional: true, cli: '[feedback]' },
    },
    http: { path: 'review', operationId: 'reviewReport', summary: 'Accept, reject or give feedback on the finished report' },
    cli: { command: 'review', description: 'accept, reject or give feedback on a finished report (review_final_report)', done: 'review sent ({action})' },
    tool: { name: 'review', description: 'Accept or reject the finished report of a session awaiting review, or give feedback for another pass.' },
  },
  cancel: {
    accepts: LIVE, leadsTo: 'cancelled', summary: 'cancel the session (what is done is kept)',
    args: { reason }, bare: true,
    http: { path: 'cancel', operationId: 'cancelResearch', summary: 'Cancel a running session (what is done is kept)' },
    cli: { command: 'cancel', done: 'cancelling' },
  },
} as const satisfies Record<string, MessageRow>;

export type MessageName = keyof typeof MESSAGES;
/** Every message, in the table's order (the order of `accepts`). */
export const MESSAGE_NAMES = Object.keys(MESSAGES) as MessageName[];
/** The rows as their common shape. */
export const MESSAGE_ROWS: Readonly<Record<MessageName, MessageRow>> = MESSAGES;

/** What one field carries, from its kind. */
type ValueOf<S> = S extends { kind: 'text' | 'question' }
  ? string
  : S extends { kind: 'choice'; of: readonly (infer C)[] }
    ? C
    : S extends { kind: 'amount' }
      ? number
      : S extends { kind: 'answers' }
        ? string[] | Record<string, string>
        : S extends { kind: 'plan' }
          ? Partial<ResearchPlan>
          : S extends { kind: 'models' }
            ? string[]
            : never;
type Flat<T> = { -readonly [K in keyof T]: T[K] };
type Fields<F> = Flat<{ [K in keyof F as F[K] extends { optional: true } ? never : K]: ValueOf<F[K]> } & { [K in keyof F as F[K] extends { optional: true } ? K : never]?: ValueOf<F[K]> }>;
type ArgsOfRow<R> = R extends { args: infer F } ? (R extends { bare: true } ? Fields<F> | undefined : Fields<F>) : undefined;

/** What a message carries (undefined: it may come with nothing), from its row. */
export type MessageArgsOf<N extends MessageName> = ArgsOfRow<(typeof MESSAGES)[N]>;

export type TopicArgs = MessageArgsOf<'provideTopic'>;
export type AnswerClarificationsArgs = MessageArgsOf<'answerClarifications'>;
export type ApproveArgs = NonNullable<MessageArgsOf<'approve'>>;
export type RevisePlanArgs = MessageArgsOf<'revisePlan'>;
export type RejectArgs = NonNullable<MessageArgsOf<'reject'>>;
/** Seed 004's confirmPartialFailure: some panel models failed after their retries. */
export type ConfirmArgs = MessageArgsOf<'confirm'>;
export type GuidanceArgs = MessageArgsOf<'guidance'>;
export type TopUpArgs = MessageArgsOf<'topUp'>;
export type ReviewArgs = MessageArgsOf<'reviewReport'>;
export type CancelArgs = NonNullable<MessageArgsOf<'cancel'>>;

/** Whether a session in `status` accepts the message (its handler may still refuse what it carries). */
export function accepts(name: MessageName, status: ResearchStatus): boolean {
  const row = MESSAGE_ROWS[name];
  if (row.accepts === LIVE) return !isTerminal(status) && row.except?.[status] === undefined;
  return row.accepts.includes(status);
}

/** Why a session in `status` refuses the message (undefined: it accepts it). */
export function refusal(name: MessageName, id: string, status: ResearchStatus): string | undefined {
  if (accepts(name, status)) return undefined;
  const row = MESSAGE_ROWS[name];
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
    const wait = (MESSAGE_ROWS as Partial<Record<string, MessageRow>>)[name]?.answers;
    return wait !== undefined && wait !== 'guidance';
  });
}
