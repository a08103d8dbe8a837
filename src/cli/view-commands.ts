// Looking at a session: `watch` and `report` (`status`: status-command.ts; `list` reads the session store: list-command.ts).
import { writeFileSync } from 'node:fs';
import { storedCopy } from '../client/payload-keys';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { formatEvent } from './format';
import { log, withClient } from './with-client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
