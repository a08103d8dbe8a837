// Steering a running session from the terminal: guidance, continue, budget top-ups, the final review.
import type { Command } from 'commander';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';

interface Common {
  json?: boolean;
}

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;

export function registerSteeringCommands(program: Command, withClient: WithClient, out: Out): void {
  program
    .command('guide')
    .argument('<researchId>')
    .argument('<guidance>')
    .description('steer the next phase of a running session')
    .option('--json')
    .action(async (id: string, text: string, o: Common) => {
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.guide(id, text)) }, `research ${id}: guidance sent`));
    });
  program
    .command('continue')
    .argument('<researchId>')
    .description('end a pause_for_guidance wait')
    .action(async (id: string) => {
      await withClient({}, async (c) => {
        await c.continue(id);
        out(false, {}, `research ${id}: continuing`);
      });
    });
  program
    .command('top-up')
    .argument('<researchId>')
    .description('raise a session budget, e.g. --cost 0.5 --searches 20')
    .option('--tokens <n>')
    .option('--cost <usd>')
    .option('--searches <n>')
    .option('--fetches <n>')
    .option('--seconds <n>')
    .option('--json')
    .action(async (id: string, o: Common & { tokens?: string; cost?: string; searches?: string; fetches?: string; seconds?: string }) => {
      const num = (v?: string) => (v === undefined ? undefined : Number(v));
      const amounts = { tokens: num(o.tokens), cost_usd: num(o.cost), searches: num(o.searches), fetches: num(o.fetches), wall_seconds: num(o.seconds) };
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.topUp(id, amounts)) }, `research ${id}: budget topped up`));
    });
  program
    .command('review')
    .argument('<researchId>')
    .argument('<action>', 'accept, reject or feedback')
    .argument('[feedback]')
    .description('accept, reject or give feedback on a finished report (review_final_report)')
    .option('--json')
    .action(async (id: string, action: string, feedback: string | undefined, o: Common) => {
      const review = { action: action as 'accept' | 'reject' | 'feedback', ...(feedback ? { feedback } : {}) };
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.review(id, review)) }, `research ${id}: review sent (${action})`));
    });
}
