// `research` (plan, approve at the terminal, research and follow progress) and `start` (start and
// return at once).
import { readFileSync } from 'node:fs';
import { askConfirmation, askForTopic, inputContexts, panelDropNotes } from './panel-commands';
import { formatPlan, panelLines } from './format';
import { cliOwner, recordOwner } from './ownership';
import { noteIfNoWorker } from '../runtime/local';
import { askApproval, askReview, followProgress, waitForPlan } from './terminal';
import { sessionSettings, type StartFlags } from './settings-flags';
import { log, out, withClient, type Common } from './with-client';

export type ResearchFlags = Common & StartFlags & { yes?: boolean; id?: string };

export async function research(given: string | undefined, o: ResearchFlags): Promise<void> {
  await withClient({ startRuntime: true }, async (client) => {
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
    const hint = `deep-research report ${started.researchId} --out report.md`;
    const why = s.reason && s.status !== 'completed' ? ` (${s.reason})` : '';
    out(
      o.json,
      { researchId: started.researchId, status: s.status, report_chars: s.report_markdown.length, ...(why ? { reason: s.reason } : {}) },
      `research ${started.researchId}: ${s.status}${why}. Report: ${hint}`,
    );
  });
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
