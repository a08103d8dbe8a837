// `status`, `report` and `watch` read a session without waiting for a part that is away: an ended
// session from the session store alone (no Temporal client loaded), a running one through the
// client's reads (src/client/reads.ts), and with Temporal not listening at all, from the store with
// a line saying so. Reads never start a server or a worker.
import type { AppConfig } from '../config/schema';
import type { ResearchSnapshot } from '../domain/types';
import type { EventsRead, StateRead } from '../client/reads';
import { awayAt, TEMPORAL_AWAY, type Away } from '../client/away';
import { openSessionStore } from '../stores/open';

/** What the three commands need of a session; `client` is there when Temporal is. */
export interface SessionReads {
  read(id: string, opts?: { statusOnly?: boolean }): Promise<StateRead>;
  readEvents(id: string, afterSeq: number, opts?: { stream?: boolean }): Promise<EventsRead>;
  client?: import('../client/research-client').ResearchClient;
}

/** Runs `fn` with the client's reads, or the store's alone when nothing listens at Temporal's address. */
export async function withReads<T>(config: AppConfig, fn: (reads: SessionReads) => Promise<T>): Promise<T> {
  const { portOpen } = require('../local/dev-server') as typeof import('../local/dev-server');
  if (await portOpen(config.temporal.address)) {
    const { withClient } = require('./with-client') as typeof import('./with-client');
    return withClient({}, (client) => fn({ read: (id, o) => client.read(id, o), readEvents: (id, after, o) => client.readEvents(id, after, o), client }));
  }
  const { PartAwayError } = require('../client/reads') as typeof import('../client/reads');
  const away: Away = { part: 'temporal', message: awayAt({ part: 'temporal', message: TEMPORAL_AWAY }, config.temporal.address) };
  const store = openSessionStore(config);
  const stored = async (id: string): Promise<ResearchSnapshot> => {
    const s = await store.get(id);
    if (!s) throw new PartAwayError(away, id);
    return s;
  };
  try {
    return await fn({
      read: async (id) => ({ state: await stored(id), away }),
      // Events as the store keeps them (an update_report event names its version's artifact; watch shows no report text).
      readEvents: async (id, after, o) => {
        await stored(id);
        const events = [...(await store.events(id, after)), ...(o?.stream ? await store.streamEvents(id, after) : [])].sort((a, b) => a.seq - b.seq);
        return { events, away };
      },
    });
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** One line for a state read from the store because a part is away. */
export function awayLine(s: ResearchSnapshot, away: Away, config: AppConfig): string {
  return `research ${s.research_id} is ${s.status} as the session store last saved it (${s.updated_at}); ${awayAt(away, config.temporal.address)}`;
}
