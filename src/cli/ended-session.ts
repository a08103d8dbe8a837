// A session that has ended, as it stored itself at the end: asking its workflow instead would have a
// worker replay its whole history (a fifth of a second for a short session, no answer without one).
import type { ResearchClient } from '../client/research-client';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';

export async function endedSession(c: ResearchClient, id: string): Promise<ResearchSnapshot | undefined> {
  const described = await c.handle(id).describe().catch(() => undefined);
  if (!described || described.status.name === 'RUNNING') return undefined;
  const stored = await c.sessions().get(id).catch(() => undefined);
  return stored && TERMINAL_STATUSES.includes(stored.status) ? stored : undefined;
}
