// The terminal's edge of the message table (src/domain/messages.ts): one command per message, made
// from its row (`cli`: command, help, the line printed once it is accepted; each field's place on
// the command line). Input is parsed and checked here, once; the client sends it as it comes.
// Nothing here names a message: a new row gets its command as it is.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { MESSAGE_ROWS, type ArgSpec, type MessageArgsOf, type MessageName, type MessageRow } from '../domain/messages';

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;
type Flags = Record<string, unknown>;

const syntaxOf = (spec: ArgSpec): string => (typeof spec.cli === 'string' ? spec.cli : spec.cli[0]);
const helpOf = (spec: ArgSpec): string | undefined => (typeof spec.cli === 'string' ? undefined : spec.cli[1]);
const isOption = (spec: ArgSpec): boolean => syntaxOf(spec).startsWith('--');
/** Where commander keeps an option's value: "--synthesis-model <m>" → synthesisModel. */
const optionKey = (syntax: string): string => (syntax.split(/\s/)[0] as string).replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A field's value from the command line (undefined: not given); throws on what it cannot take. */
function fromCli(spec: ArgSpec, field: string, raw: unknown): unknown {
  if (raw === undefined) return undefined;
  switch (spec.kind) {
    case 'question':
      // Loaded here: the client's errors bring the Temporal client, which `--help` does without.
      return (require('../client/errors') as typeof import('../client/errors')).validateQuery(raw);
    case 'choice':
      if (!spec.of.includes(raw as string)) throw new Error(`${field} must be ${spec.of.slice(0, -1).join(', ')} or ${spec.of.at(-1)}, not "${String(raw)}"`);
      return raw;
    case 'amount': {
      // As the route's schema takes it (src/server/message-routes.ts): positive, at most `max`, whole where it counts.
      const n = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(String(raw)) ? Number(raw) : Number.NaN;
      if (!(n > 0 && n <= spec.max) || (spec.whole && !Number.isInteger(n))) throw new Error(`${syntaxOf(spec).split(' ')[0]} must be ${spec.whole ? 'a whole number' : 'a number'} above 0 and at most ${spec.max}, not "${String(raw)}"`);
      return n;
    }
    case 'plan':
      return JSON.parse(readFileSync(raw as string, 'utf8')) as unknown;
    case 'models': {
      const models = (raw as string).split(',').map((p) => p.trim()).filter(Boolean);
      return models.length ? models : undefined;
    }
    default:
      return raw;
  }
}

/** The line printed once the session accepted it, with each {field} filled in. */
const doneLine = (row: MessageRow, id: string, args: Record<string, unknown>) => `research ${id}: ${row.cli.done.replace(/\{(\w+)\}/g, (_, field: string) => String(args[field] ?? ''))}`;

export function registerSteeringCommands(program: Command, withClient: WithClient, out: Out): void {
  for (const [name, row] of Object.entries(MESSAGE_ROWS) as [MessageName, MessageRow][]) {
    const fields = Object.entries(row.args ?? {});
    const positional = fields.filter(([, spec]) => !isOption(spec));
    const cmd = program.command(row.cli.command).argument('<researchId>').description(row.cli.description ?? row.summary);
    for (const [, spec] of positional) cmd.argument(syntaxOf(spec), helpOf(spec));
    for (const [, spec] of fields.filter(([, s]) => isOption(s))) cmd.option(syntaxOf(spec), helpOf(spec));
    cmd.option('--json').action(async (id: string, ...rest: unknown[]) => {
      const flags = rest[positional.length] as Flags;
      const given: Record<string, unknown> = {};
      for (const [field, spec] of fields) {
        const raw = isOption(spec) ? flags[optionKey(syntaxOf(spec))] : rest[positional.findIndex(([f]) => f === field)];
        const value = fromCli(spec, field, raw);
        if (value !== undefined) given[field] = value;
      }
      if (row.oneOf && Object.keys(given).length === 0) throw new Error(`${row.cli.command} needs at least one of ${fields.map(([, spec]) => syntaxOf(spec).split(' ')[0]).join(', ')}`);
      const args = row.args ? given : undefined;
      await withClient({}, async (c) => out(flags.json as boolean | undefined, { researchId: id, ...(await c.send(id, name, args as MessageArgsOf<MessageName>)) }, doneLine(row, id, given)));
    });
  }
}
