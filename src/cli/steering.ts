// The terminal's edge of the message table (src/domain/messages.ts): one command per message, built
// from its row here (command, arguments, options, how they become the message's arguments, the line
// printed once it is accepted). Input is parsed and checked here, once; the client sends it as it
// comes. A message without its row here does not compile.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import type { MessageArgsOf, ReviewArgs } from '../domain/messages';
import type { MessageName } from '../domain/names';
import type { ResearchPlan } from '../domain/types';
import { panelSettings, type PanelFlags } from './panel-commands';

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;
type Flags = Record<string, string | undefined>;

interface CommandRow<N extends MessageName> {
  command: string;
  description?: string;
  /** Positional arguments after <researchId>: [syntax, description]. */
  arguments?: [string, string?][];
  options?: [string, string?][];
  /** The message's arguments from the positional arguments and options (throws on bad input). */
  args: (given: string[], flags: Flags) => MessageArgsOf<N>;
  /** The line printed once the session accepted it. */
  done: (id: string, given: string[]) => string;
}

const num = (v?: string) => (v === undefined ? undefined : Number(v));

/** In the order `--help` lists them. */
export const MESSAGE_COMMANDS: { [N in MessageName]: CommandRow<N> } = {
  approve: {
    command: 'approve',
    options: [['--plan <file>', 'an edited plan (JSON) to approve instead'], ['--panel <models>', 'the panel, for a panel session whose panel came out empty']],
    args: (_, o) => {
      const plan = o.plan ? (JSON.parse(readFileSync(o.plan, 'utf8')) as Partial<ResearchPlan>) : undefined;
      const panel = panelSettings(o as PanelFlags).panel as string[] | undefined;
      return { ...(plan ? { plan } : {}), ...(panel?.length ? { panel } : {}) };
    },
    done: (id) => `research ${id}: approved`,
  },
  reject: { command: 'reject', options: [['--reason <text>']], args: (_, o) => ({ reason: o.reason }), done: (id) => `research ${id}: rejected` },
  answerClarifications: {
    command: 'answer', arguments: [['<answers...>', 'one answer per clarifying question, in order']],
    args: ([answers]) => ({ answers: answers as unknown as string[] }), done: (id) => `research ${id}: answers sent`,
  },
  revisePlan: { command: 'revise', arguments: [['<feedback>']], args: ([feedback]) => ({ feedback }), done: (id) => `research ${id}: revising the plan` },
  cancel: { command: 'cancel', options: [['--reason <text>']], args: (_, o) => ({ reason: o.reason }), done: (id) => `research ${id}: cancelling` },
  guidance: {
    command: 'guide', description: 'steer the next phase of a running session', arguments: [['<guidance>']],
    args: ([text]) => ({ text }), done: (id) => `research ${id}: guidance sent`,
  },
  continue: { command: 'continue', description: 'end a pause_for_guidance wait', args: () => undefined, done: (id) => `research ${id}: continuing` },
  topUp: {
    command: 'top-up', description: 'raise a session budget, e.g. --cost 0.5 --searches 20',
    options: [['--tokens <n>'], ['--cost <usd>'], ['--searches <n>'], ['--fetches <n>'], ['--seconds <n>']],
    args: (_, o) => ({ tokens: num(o.tokens), cost_usd: num(o.cost), searches: num(o.searches), fetches: num(o.fetches), wall_seconds: num(o.seconds) }),
    done: (id) => `research ${id}: budget topped up`,
  },
  reviewReport: {
    command: 'review', description: 'accept, reject or give feedback on a finished report (review_final_report)',
    arguments: [['<action>', 'accept, reject or feedback'], ['[feedback]']],
    args: ([action, feedback]) => ({ action: action as ReviewArgs['action'], ...(feedback ? { feedback } : {}) }),
    done: (id, [action]) => `research ${id}: review sent (${action})`,
  },
  confirm: {
    command: 'confirm', description: 'answer a partial failure of panel research (awaiting_confirmation)',
    arguments: [['<action>', 'proceed (synthesize the answers there are), retry (only the failed models) or cancel']],
    args: ([action]) => {
      if (action !== 'proceed' && action !== 'retry' && action !== 'cancel') throw new Error(`action must be proceed, retry or cancel, not "${action}"`);
      return { action };
    },
    done: (id, [action]) => `research ${id}: ${action}`,
  },
  provideTopic: {
    command: 'topic', description: 'give the question to a session started without one (awaiting_topic)', arguments: [['<question>']],
    args: ([question]) => ({ query: (require('../client/errors') as typeof import('../client/errors')).validateQuery(question) }), done: (id) => `research ${id}: question given`,
  },
};

export function registerSteeringCommands(program: Command, withClient: WithClient, out: Out): void {
  for (const [name, row] of Object.entries(MESSAGE_COMMANDS) as [MessageName, CommandRow<MessageName>][]) {
    const cmd = program.command(row.command).argument('<researchId>');
    if (row.description) cmd.description(row.description);
    for (const [syntax, description] of row.arguments ?? []) cmd.argument(syntax, description);
    for (const [flags, description] of row.options ?? []) cmd.option(flags, description);
    cmd.option('--json').action(async (id: string, ...rest: unknown[]) => {
      const given = rest.slice(0, row.arguments?.length ?? 0) as string[];
      const flags = rest[given.length] as Flags;
      const args = row.args(given, flags);
      await withClient({}, async (c) => out((flags as { json?: boolean }).json, { researchId: id, ...(await c.send(id, name, args)) }, row.done(id, given)));
    });
  }
}
