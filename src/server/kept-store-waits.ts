// A session's store waits (Temporal's describe of its run) read at most once per `keepMs` for every
// GET of it: a status page polled by many clients, or a reconnect storm's pages, costs the engine
// one describe per session and interval, not one per request. A wait shows up (or clears) at most
// `keepMs` late, well within the retries' own backoff.
import type { Client } from '@temporalio/client';
import { storeWaits, type StoreWaitNote } from '../client/store-waits';

export function keptStoreWaits(client: Client, keepMs = 5_000, maxKept = 10_000): (researchId: string) => Promise<StoreWaitNote[]> {
  const kept = new Map<string, { at: number; waits: Promise<StoreWaitNote[]> }>();
  return (researchId) => {
    const now = Date.now();
    const hit = kept.get(researchId);
    if (hit && now - hit.at < keepMs) return hit.waits;
    // Unreadable details read as no waits, as before; they are asked again next interval.
    const waits = storeWaits(client, researchId).catch(() => []);
    kept.delete(researchId);
    kept.set(researchId, { at: now, waits });
    if (kept.size > maxKept) kept.delete(kept.keys().next().value as string);
    return waits;
  };
}
