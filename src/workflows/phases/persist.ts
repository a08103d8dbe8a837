import { bookkeeping, store } from '../activities';
import type { ResearchSession } from '../session';

/**
 * Writes the session snapshot and the events not yet stored. Idempotent: safe to retry or repeat.
 * The one activity not logged as a ToolCall pair: it is the log's own bookkeeping, and the final
 * write must end with the StopEvent.
 */
export async function persistSession(s: ResearchSession, opts: { final?: boolean } = {}): Promise<void> {
  const events = s.unpersistedEvents();
  // The final write is an ordinary activity even in pipelined sessions: a local one would let the
  // workflow complete in the very task that accepted a cancel update, racing the cancelled
  // activities' results (Temporal then fails that task, and the update with it).
  const stub = opts.final ? store : bookkeeping(s.state.local_bookkeeping);
  await stub.persistSession({ snapshot: s.snapshot(), events });
  if (events.length) s.markPersisted(events[events.length - 1].seq);
}
