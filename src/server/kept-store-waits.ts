// A session's store waits (Temporal's describe of its run) read at most once per `keepMs` for every
// GET of it: a status page polled by many clients, or a reconnect storm's pages, costs the engine
// one describe per session and interval, not one per request. A wait shows up (or clears) at most
// `keepMs` late, well within the retries' own backoff. A read waits for them at most `patienceMs`:
// an engine that is slow or stopped holds up no read (the waits show on a later read once known).
import type { Client } from '@temporalio/client';
import { storeWaits, type StoreWaitNote } from '../client/store-waits';
import { ENGINE_CHECK_MS } from '../client/reads';

export function keptStoreWaits(client: Client, keepMs = 5_000, maxKept = 10_000, patienceMs = 300): (researchId: string) => Promise<StoreWaitNote[]> {
  const kept = new Map<string, { at: number; waits: Promise<StoreWaitNote[]> }>();
  return (researchId) => {
    const now = Date.now();
    const hit = kept.get(researchId);
    if (hit && now - hit.at < keepMs) return patiently(hit.waits);
    // Unreadable details read as no waits, as before; they are asked again next interval.
    const waits = client.connection.withDeadline(Date.now() + ENGINE_CHECK_MS, () => storeWaits(client, researchId)).catch(() => []);
    kept.delete(researchId);
    kept.set(researchId, { at: now, waits });
    if (kept.size > maxKept) kept.delete(kept.keys().next().value as string);
    return patiently(waits);
  };
  function patiently(waits: Promise<StoreWaitNote[]>): Promise<StoreWaitNote[]> {
    let timer: NodeJS.Timeout | undefined;
    const none = new Promise<StoreWaitNote[]>((resolve) => (timer = setTimeout(() => resolve([]), patienceMs)));
    return Promise.race([waits, none]).finally(() => clearTimeout(timer));
  }
}
