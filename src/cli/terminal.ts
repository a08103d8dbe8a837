// The research command at a terminal: waiting for the plan, following progress on one line, and
// asking for approval (with the planner's questions) and for the verdict on the report.
import { createInterface } from 'node:readline/promises';
import type { ResearchClient } from '../client/research-client';
import { waitsForAnswer } from '../domain/messages';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { formatPlan, progressLine } from './format';
import { startingWorker } from '../local/worker-records';
import { activePollers, waitingForWorkerLine } from '../runtime/local';
import { Progress } from './progress';
import { endedSession } from './ended-session';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True once `ended` settles, false after `ms`; its timer is cleared either way, so it never keeps the command alive after the end. */
export function endedWithin(ended: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const tick = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([ended, tick]).finally(() => clearTimeout(timer));
}

/**
 * Waits while the session plans. Until a worker polls, the session cannot be asked anything: the
 * line says the CLI's own background worker is starting (and since when), or, after a few seconds
 * with none starting, that no worker is there.
 */
export async function waitForPlan(client: ResearchClient, id: string): Promise<ResearchSnapshot> {
  const since = Date.now();
  const progress = new Progress();
  let polled = false;
  let warned = false;
  try {
    for (;;) {
      if (!polled && !(polled = (await activePollers(client).catch(() => 1)) > 0)) {
        const starting = startingWorker(client.config);
        if (starting) progress.show(`starting the background worker (pid ${starting.pid})`, starting.since);
        else if (!warned && Date.now() - since >= 5_000) {
          progress.clear();
          log(waitingForWorkerLine(client));
          warned = true;
        }
        await sleep(200);
        continue;
      }
      const s = await client.state(id);
      if (s.status !== 'planning') return s;
      progress.show('drafting the plan', since);
      await sleep(250);
    }
  } finally {
    progress.clear();
  }
}

/**
 * Follows a session to its end or its next wait for a person, one progress line a second. The end
 * itself is learnt from the workflow's result (a long poll through every run it continues as), so
 * the command returns the moment the session ends, with the snapshot it stored then.
 */
export async function followProgress(client: ResearchClient, id: string, json?: boolean): Promise<ResearchSnapshot> {
  let last = '';
  const tty = process.stderr.isTTY && !json;
  const ended = client.waitForResult(id).then(
    () => true,
    () => true,
  );
  let over = false;
  for (;;) {
    const s = (over ? await endedSession(client, id) : undefined) ?? (await client.state(id));
    const line = progressLine(s);
    if (line !== last) {
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
      else if (!json) log(line);
      last = line;
    }
    if (over || TERMINAL_STATUSES.includes(s.status) || waitsForAnswer(s.accepts ?? [])) {
      if (tty) process.stderr.write('\n');
      return s;
    }
    over = await endedWithin(ended, 1000);
  }
}

export async function askApproval(client: ResearchClient, id: string, s: ResearchSnapshot): Promise<'approved' | 'detached' | 'rejected'> {
  if (!process.stdin.isTTY) {
    log(`waiting for approval: run "deep-research approve ${id}" (or reject / revise) from any machine`);
    return 'detached';
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    let state = s;
    for (;;) {
      if (state.status === 'awaiting_clarification' && state.plan) {
        const answers: string[] = [];
        log('The planner has questions (Enter skips one):');
        for (const q of state.plan.clarifying_questions) answers.push((await rl.question(`${q}\n> `)).trim());
        await client.send(id, 'answerClarifications', { answers });
      } else {
        const answer = (await rl.question('Approve this plan? [y]es, [n]o, [r]evise, [d]etach: ')).trim().toLowerCase();
        if (answer.startsWith('y')) {
          await client.send(id, 'approve', undefined);
          return 'approved';
        }
        if (answer.startsWith('n')) {
          await client.send(id, 'reject', { reason: (await rl.question('Reason (optional): ')).trim() || undefined });
          return 'rejected';
        }
        if (answer.startsWith('d')) return 'detached';
        if (!answer.startsWith('r')) continue;
        await client.send(id, 'revisePlan', { feedback: await rl.question('What should change?\n> ') });
      }
      state = await waitForPlan(client, id);
      if (state.plan) log(`\n${formatPlan(state.plan)}\n`);
      if (TERMINAL_STATUSES.includes(state.status)) return 'rejected';
    }
  } finally {
    rl.close();
  }
}

/** review_final_report at the terminal: accept, reject, or feedback for one more pass. */
export async function askReview(client: ResearchClient, id: string, json?: boolean): Promise<ResearchSnapshot> {
  if (!process.stdin.isTTY) {
    log(`the report waits for review: run "deep-research review ${id} accept|reject|feedback \"…\"" from any machine`);
    return client.state(id);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      log(`\n${(await client.report(id)).slice(0, 4_000)}\n`);
      const answer = (await rl.question('Accept this report? [a]ccept, [r]eject, [f]eedback, [d]etach: ')).trim().toLowerCase();
      if (answer.startsWith('d')) return client.state(id);
      if (answer.startsWith('a')) await client.send(id, 'reviewReport', { action: 'accept' });
      else if (answer.startsWith('r')) await client.send(id, 'reviewReport', { action: 'reject', feedback: (await rl.question('Why (optional): ')).trim() || undefined });
      else if (answer.startsWith('f')) await client.send(id, 'reviewReport', { action: 'feedback', feedback: (await rl.question('What should another pass cover?\n> ')).trim() });
      else continue;
      const s = await followProgress(client, id, json);
      if (s.status !== 'awaiting_review') return s;
    }
  } finally {
    rl.close();
  }
}
