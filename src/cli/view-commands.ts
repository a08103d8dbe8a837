// Looking at a session: `status`, `watch` and `report` (`list` reads the session store: list-command.ts).
import { writeFileSync } from 'node:fs';
import { storeWaits } from '../client/store-waits';
import { storedCopy } from '../client/payload-keys';
import { endedSession } from './ended-session';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { budgetSettingsOf } from '../budget/settings';
import { phaseBudgets } from '../budget/phases';
import { formatEvent, formatStatus } from './format';
import { log, out, withClient, type Common } from './with-client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function status(id: string, o: Common): Promise<void> {
  await withClient({}, async (c, config) => {
    const ended = await endedSession(c, id);
    const s = ended ?? (await c.state(id, { statusOnly: true }).catch((err: unknown) => storedCopy(err, log)));
    const budget = budgetSettingsOf(config);
    const budgets = { enabled: budget.enabled, phases: phaseBudgets(budget, (role) => s.providers?.model_chains[role]?.[0] ?? config.models.default) };
    // A session whose store is away says so: "waiting for the session store (attempt 4: …)".
    const waits = ended ? [] : await storeWaits(c.client, id).catch(() => []);
    out(o.json, { ...s, token_budgets: budgets, ...(waits.length ? { waiting_for_store: waits } : {}) }, [formatStatus(s, budgets), ...waits.map((w) => w.line)].join('\n'));
  });
}

export async function watch(id: string, o: { after: string; stream: boolean }): Promise<void> {
  await withClient({}, async (c) => {
    let after = Number(o.after);
    for (;;) {
      for (const e of await c.events(id, after, { stream: o.stream })) {
        process.stdout.write(`${formatEvent(e)}\n`);
        after = e.seq;
      }
      const s = await c.state(id);
      if (TERMINAL_STATUSES.includes(s.status)) {
        for (const e of await c.events(id, after, { stream: o.stream })) process.stdout.write(`${formatEvent(e)}\n`);
        return;
      }
      await sleep(1000);
    }
  });
}

export async function report(id: string, o: { out?: string }): Promise<void> {
  await withClient({}, async (c) => {
    let stored: ResearchSnapshot | undefined;
    const md = await c.report(id).catch((err: unknown) => c.reportOf((stored = storedCopy(err, log))));
    if (o.out?.toLowerCase().endsWith('.pdf')) {
      const { reportPdf } = require('../report/pdf') as typeof import('../report/pdf');
      const pdf = await reportPdf(md, { title: (stored ?? (await c.state(id))).initial_query });
      writeFileSync(o.out, pdf);
      log(`wrote a ${pdf.length}-byte PDF to ${o.out}`);
    } else if (o.out) {
      writeFileSync(o.out, md);
      log(`wrote ${md.length} characters to ${o.out}`);
    } else process.stdout.write(md);
  });
}
