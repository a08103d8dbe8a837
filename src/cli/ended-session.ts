// A session that has ended, as it stored itself at the end: asking its workflow instead would have a
// worker replay its whole history (a fifth of a second for a short session, no answer without one).
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { openSessionStore } from '../stores/open';

export async function endedSession(c: ResearchClient, id: string): Promise<ResearchSnapshot | undefined> {
  const described = await c.handle(id).describe().catch(() => undefined);
  if (!described || described.status.name === 'RUNNING') return undefined;
  const stored = await c.sessions().get(id).catch(() => undefined);
  return stored && TERMINAL_STATUSES.includes(stored.status) ? stored : undefined;
}

/**
 * The session's final snapshot from the session store alone, if the store has it ended; undefined
 * while it runs (or the store cannot be read). A session run again (retry, resume) is marked as
 * running in the store before its new run starts, so an ended status here is the session's last word.
 */
export async function storedEnd(config: AppConfig, id: string): Promise<ResearchSnapshot | undefined> {
  let store: ReturnType<typeof openSessionStore> | undefined;
  try {
    store = openSessionStore(config);
    const stored = await store.get(id);
    return stored && TERMINAL_STATUSES.includes(stored.status) ? stored : undefined;
  } catch {
    return undefined;
  } finally {
    await store?.close().catch(() => undefined);
  }
}
