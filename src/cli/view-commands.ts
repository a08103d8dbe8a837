// Looking at a session: `watch` and `report` (`status`: status-command.ts; `list` reads the session
// store: list-command.ts). An ended session is read from the session store alone; a running one
// whose worker or Temporal is away shows what the store has and says what is away (session-reads.ts).
import { writeFileSync } from 'node:fs';
import { TERMINAL_STATUSES, type ResearchEvent, type ResearchSnapshot } from '../domain/types';
import { formatEvent } from './format';
import { loadConfig } from './config';
import { storedEnd } from './ended-session';
import { awayLine, withReads, type SessionReads } from './session-reads';
import type { AppConfig } from '../config/schema';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function watch(id: string, o: { after: number; stream: boolean }): Promise<void> {
  const config = loadConfig();
  let after = o.after;
  const print = (events: ResearchEvent[]) => {
    for (const e of events) {
      process.stdout.write(`${formatEvent(e)}\n`);
      after = e.seq;
    }
  };
  const ended = await storedEnd(config, id);
  if (ended) {
    const store = (require('../stores/open') as typeof import('../stores/open')).openSessionStore(config);
    try {
      print([...(await store.events(id, after)), ...(o.stream ? await store.streamEvents(id, after) : [])].sort((a, b) => a.seq - b.seq));
    } finally {
      await store.close();
    }
    return;
  }
  await withReads(config, async (reads) => {
    let said = '';
    for (;;) {
      const { events } = await reads.readEvents(id, after, { stream: o.stream });
      print(events);
      const { state, away } = await reads.read(id, { statusOnly: true });
      // What is away is said once (and again if it changes); watch follows on: a worker started later carries the session on.
      const line = away ? `${awayLine(state, away, config)}; following on` : '';
      if (line && line !== said) log(line);
      said = line;
      if (TERMINAL_STATUSES.includes(state.status)) {
        print((await reads.readEvents(id, after, { stream: o.stream })).events);
        return;
      }
      await sleep(1000);
    }
  });
}

export async function report(id: string, o: { out?: string }): Promise<void> {
  const config = loadConfig();
  const state = (await storedEnd(config, id)) ?? (await withReads(config, (reads) => readForReport(reads, id, config)));
  const md = state.report_markdown;
  if (o.out?.toLowerCase().endsWith('.pdf')) {
    const { reportPdf } = require('../report/pdf') as typeof import('../report/pdf');
    const pdf = await reportPdf(md, { title: state.initial_query });
    writeFileSync(o.out, pdf);
    log(`wrote a ${pdf.length}-byte PDF to ${o.out}`);
  } else if (o.out) {
    writeFileSync(o.out, md);
    log(`wrote ${md.length} characters to ${o.out}`);
  } else process.stdout.write(md);
}

/** A running session's report as it stands (with its text); the store's copy, said so, when a part is away or its payloads cannot be read here. */
async function readForReport(reads: SessionReads, id: string, config: AppConfig): Promise<ResearchSnapshot> {
  const { storedCopy } = require('../client/payload-keys') as typeof import('../client/payload-keys');
  const { state, away } = await reads.read(id).catch((err: unknown) => ({ state: storedCopy(err, log), away: undefined }));
  if (away) log(awayLine(state, away, config));
  return state;
}
