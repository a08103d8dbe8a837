import { store } from '../activities';
import type { ResearchSession } from '../session';

/**
 * Writes the session snapshot and the events not yet stored. Idempotent: safe to retry or repeat.
 * The one activity not logged as a ToolCall pair: it is the log's own bookkeeping, and the final
 * write must end with the StopEvent.
 */
export async function persistSession(s: ResearchSession): Promise<void> {
  const events = s.unpersistedEvents();
  await store.persistSession({ snapshot: s.snapshot(), events });
  if (events.length) s.markPersisted(events[events.length - 1].seq);
}
