import { isCancellation } from '@temporalio/workflow';
import { store } from '../activities';
import { errorMessage, type ResearchSession } from '../session';

/** Writes asked for beside the research: one at a time, in order; `queued` while one waits its turn. */
const writers = new WeakMap<ResearchSession, { tail: Promise<void>; queued: boolean }>();

/**
 * Writes the session snapshot and the events not yet stored, after any write still under way.
 * Idempotent: safe to retry or repeat. The one activity not logged as a ToolCall pair: it is the
 * log's own bookkeeping, and the final write must end with the StopEvent.
 */
export async function persistSession(s: ResearchSession): Promise<void> {
  await writers.get(s)?.tail;
  await write(s);
}

/**
 * The same write between phases, without holding up the next phase: the snapshot is taken when
 * the write starts, so a write asked for while another waits its turn is that one. Waits and the
 * end of a run write with persistSession, after these.
 */
export function persistBeside(s: ResearchSession): void {
  const writer = writers.get(s) ?? { tail: Promise.resolve(), queued: false };
  writers.set(s, writer);
  if (writer.queued) return;
  writer.queued = true;
  writer.tail = writer.tail.then(async () => {
    writer.queued = false;
    try {
      await write(s);
    } catch (err) {
      // The next write carries the same state; a cancelled run writes its last one itself.
      if (!isCancellation(err)) s.warn(`saving the session did not work this time: ${errorMessage(err)}`);
    }
  });
}

async function write(s: ResearchSession): Promise<void> {
  const events = s.unpersistedEvents();
  await store.persistSession({ snapshot: s.snapshot(), events });
  if (events.length) s.markPersisted(events[events.length - 1].seq);
}
