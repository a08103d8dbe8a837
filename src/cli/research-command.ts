// `research` (plan, approve at the terminal, research and follow progress) and `start` (start and
// return at once).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { askConfirmation, askForTopic, inputContexts, panelDropNotes } from './panel-commands';
import { formatPlan, panelLines } from './format';
import { cliOwner, recordOwner } from './ownership';
import { noteIfNoWorker } from '../runtime/local';
import { askApproval, askReview, followProgress, waitForPlan } from './terminal';
import { sessionSettings, type StartFlags } from './settings-flags';
import { log, out, withClient, type Common } from './with-client';

export type ResearchFlags = Common & StartFlags & { yes?: boolean; id?: string };

export async function research(given: string | undefined, o: ResearchFlags): Promise<void> {
  await withClient({ startRuntime: true }, async (client, config) => {
    const settings = sessionSettings(o);
    // Seed 002: at a terminal the planner's questions are asked; unattended runs skip them.
    const interactive = process.stdin.isTTY && !o.yes && !o.json;
    if (interactive && settings.ask_clarifications === undefined) settings.ask_clarifications = true;
    // Seed 003's ask_topic: no question → asked here, or the session waits for one.
    const question = given?.trim() || (await askForTopic(log));
    const contexts = inputContexts(o, (file) => readFileSync(file, 'utf8'));
    const owner = await cliOwner(client);
    const started = await client.start({ query: question, researchId: o.id, settings, autoApprove: o.yes, askTopic: true, contexts });
    await recordOwner(client, owner, { researchId: started.researchId, query: question, status: started.status }, log);
    if (!question) {
      out(o.json, { researchId: started.researchId, status: started.status }, `research ${started.researchId} waits for its question: deep-research topic ${started.researchId} "<question>"`);
      return;
    }
    log(`research ${started.researchId} started; Ctrl-C detaches, the research goes on`);
    process.once('SIGINT', () => {
      log(`\ndetached: follow with "deep-research watch ${started.researchId}"`);
      process.exit(130);
    });
    let s = await waitForPlan(client, started.researchId);
    if (s.plan && !o.json) log(`\n${formatPlan(s.plan)}\n`);
    // A panel smaller than asked for says so before anything runs.
    for (const line of panelLines(s)) log(line);
    if (s.status === 'awaiting_approval' || s.status === 'awaiting_clarification') {
      const decision = await askApproval(client, started.researchId, s);
      if (decision !== 'approved') {
        s = await client.state(started.researchId);
        out(o.json, { researchId: started.researchId, status: s.status }, `research ${started.researchId}: ${s.status}`);
        return;
      }
    }
    s = await followProgress(client, started.researchId, o.json);
    while (s.status === 'awaiting_confirmation' && (await askConfirmation(client, s, log))) s = await followProgress(client, started.researchId, o.json);
    if (s.status === 'awaiting_review') s = await askReview(client, started.researchId, o.json);
    showResult(s, config, o.json);
  });
}

/** Lines of the report shown at a terminal before pointing at the whole file. */
const OPENING_LINES = 40;

/**
 * The end of `research`: the report itself, kept in <data dir>/reports/<id>.md. At a terminal its
 * opening and where the whole is; piped, the whole report on stdout (`research … > report.md`) and
 * the closing line on stderr.
 */
function showResult(s: ResearchSnapshot, config: AppConfig, json?: boolean): void {
  const id = s.research_id;
  const why = s.reason && s.status !== 'completed' ? ` (${s.reason})` : '';
  const md = s.report_markdown;
  const file = md.trim() && TERMINAL_STATUSES.includes(s.status) ? saveReport(config, id, md) : undefined;
  if (json) {
    out(true, { researchId: id, status: s.status, report_chars: md.length, ...(file ? { report_file: file } : {}), ...(why ? { reason: s.reason } : {}) }, '');
    return;
  }
  const summary = `research ${id}: ${s.status}${why}`;
  if (!file) {
    out(false, {}, `${summary}. Report: deep-research report ${id} --out report.md`);
    return;
  }
  const counts = resultCounts(s);
  if (!process.stdout.isTTY) {
    process.stdout.write(md.endsWith('\n') ? md : `${md}\n`);
    log(`${summary} (${counts}); the report is also in ${file}`);
    return;
  }
  const lines = md.trimEnd().split('\n');
  const opening = lines.slice(0, OPENING_LINES).join('\n');
  const more = lines.length - OPENING_LINES;
  out(false, {}, `\n${opening}\n${more > 0 ? `\n… ${more} more lines\n` : ''}\n${summary} (${counts}). The whole report: ${file} (or deep-research report ${id} --out report.pdf)`);
}

/** "2 sources read, 6 findings; 12 more pages found off topic, not read": a page skipped unread was not read. */
export function resultCounts(s: Pick<ResearchSnapshot, 'sources' | 'findings'>): string {
  const fetched = s.sources.filter((x) => x.status === 'fetched');
  const skipped = fetched.filter((x) => x.skipped_off_topic).length;
  const read = fetched.length - skipped;
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  return `${count(read, 'source')} read, ${count(s.findings.length, 'finding')}${skipped ? `; ${count(skipped, read ? 'more page' : 'page')} found off topic, not read` : ''}`;
}

function saveReport(config: AppConfig, id: string, md: string): string | undefined {
  const file = path.join(config.data_dir, 'reports', `${id}.md`);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, md);
    return file;
  } catch (err) {
    log(`could not keep the report in ${file}: ${(err as Error).message}`);
    return undefined;
  }
}

export async function start(question: string, o: ResearchFlags): Promise<void> {
  await withClient({ startRuntime: true }, async (client) => {
    const contexts = inputContexts(o, (file) => readFileSync(file, 'utf8'));
    const owner = await cliOwner(client);
    const settings = sessionSettings(o);
    // Seed 002: the plan waits for a person anyway, so the planner's questions are asked too (answer them with `answer`).
    if (!o.yes && settings.ask_clarifications === undefined) settings.ask_clarifications = true;
    const started = await client.start({ query: question, researchId: o.id, settings, autoApprove: o.yes, contexts });
    await recordOwner(client, owner, { researchId: started.researchId, query: question, status: started.status }, log);
    out(o.json, started, `research ${started.researchId} started (${started.status})`);
    if (!o.yes && !o.json) log(`the planner may ask clarifying questions first: see them with "deep-research status ${started.researchId}", answer with "deep-research answer ${started.researchId} …"`);
    for (const note of panelDropNotes(settings)) log(note);
    await noteIfNoWorker(client, log);
  });
}
