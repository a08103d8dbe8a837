// Runs again from a stored session: retry a failed one, resume a cancelled or timed-out one,
// enhance a completed one into a new version; and an ended session's delivery sent again.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { wholeNumber } from './number-flags';

interface Common {
  json?: boolean;
}

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;

export function registerSessionCommands(program: Command, withClient: WithClient, out: Out, log: (line: string) => void): void {
  program
    .command('retry')
    .argument('<researchId>')
    .description('run a failed session again from where it failed (finished work is reused)')
    .option('--json')
    .action(async (id: string, o: Common) => {
      await withClient({ startRuntime: true }, async (c) => out(o.json, await c.retry(id), `research ${id}: retrying from where it failed`));
    });
  program
    .command('resume')
    .argument('<researchId>')
    .description('go on with a cancelled or timed-out session from where it stopped')
    .option('--timeout <seconds>', 'a new time limit for the resumed run (timeout_seconds)', wholeNumber(1))
    .option('--json')
    .action(async (id: string, o: Common & { timeout?: number }) => {
      const timeoutSeconds = o.timeout;
      await withClient({ startRuntime: true }, async (c) => {
        // Checked here, once, as the setting it becomes.
        if (timeoutSeconds !== undefined) await c.parseSettings({ timeout_seconds: timeoutSeconds });
        out(o.json, await c.resume(id, { timeoutSeconds }), `research ${id}: resumed${timeoutSeconds !== undefined ? ` with ${timeoutSeconds} s to run` : ''}`);
      });
    });
  program
    .command('deliver')
    .argument('<researchId>')
    .description("send a session's delivery (e-mail, webhooks) again once it has ended: to the targets it failed")
    .option('--force', 'send to every target again, also those it reached')
    .option('--no-wait', 'start sending and return; status shows the outcome')
    .option('--json')
    .action(async (id: string, o: Common & { force?: boolean; wait: boolean }) => {
      await withClient({ startRuntime: true }, async (c) => {
        const answer = await c.deliver(id, { force: o.force, ...(o.wait ? {} : { waitMs: 0 }) });
        out(o.json, answer, answer.message);
        if (answer.delivery === 'failed') process.exitCode = 1;
      });
    });
  program
    .command('enhance')
    .argument('<researchId>')
    .description('research a completed session further into a new version (the old report stays)')
    .option('--iterations <n>', 'more research iterations (1 to 10)', wholeNumber(1, 10), 1)
    .option('--model <provider:model>', 'another model for every role')
    .option('--focus <text>', 'what the new version should add')
    .option('--context <file...>', 'files to take into account (PDF, Word, HTML, Markdown, text)')
    .option('--json')
    .action(async (id: string, o: Common & { iterations: number; model?: string; focus?: string; context?: string[] }) => {
      const { contextFromFile } = require('../client/context-files') as typeof import('../client/context-files');
      const contexts = await Promise.all((o.context ?? []).map((file) => contextFromFile({ filename: file, bytes: readFileSync(file) })));
      await withClient({ startRuntime: true }, async (c) => {
        const { cliOwner, recordOwner } = require('./ownership') as typeof import('./ownership');
        if (o.model) await c.parseSettings({ model: o.model });
        const owner = await cliOwner(c);
        const started = await c.enhance(id, { iterations: o.iterations, model: o.model, focus: o.focus, contexts });
        await recordOwner(c, owner, { researchId: started.researchId, query: (await c.state(id)).initial_query, status: started.status, parentId: id }, log);
        out(o.json, started, `research ${id}: enhancing as ${started.researchId}`);
      });
    });
}
