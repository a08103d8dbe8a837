// The service store as the API uses it while the shared database may be away: what it last read
// about each session and token is remembered, and used only when the database cannot be reached.
// So a user who was answered a moment ago still gets their session's status — which then says it
// waits for its store — instead of a 503. Nothing is remembered in place of an answer the database
// gives: a revoked token or a deleted session is forgotten as soon as the database says so.
import { hashToken, type OwnedSession, type ServiceStore } from '../stores/service';
import { isStoreUnavailable } from '../stores/unavailable';

/**
 * The store cannot be reached and nothing remembered says the caller owns the session. Whoever
 * owns it (or whether it exists) must not change the answer, so the caller answers as for an
 * unknown id.
 */
export class OwnershipUnknownError extends Error {
  constructor(readonly cause: unknown) {
    super('the session store cannot be reached to look the session up');
  }
}

/** Entries kept per kind; the oldest go first. */
const LIMIT = 10_000;

class Memory<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V | undefined): void {
    this.map.delete(key);
    if (value === undefined) return;
    this.map.set(key, value);
    if (this.map.size > LIMIT) this.map.delete(this.map.keys().next().value as string);
  }
}

async function orRemembered<T>(read: () => Promise<T>, remembered: () => T | undefined, remember: (value: T) => void): Promise<T> {
  try {
    const value = await read();
    remember(value);
    return value;
  } catch (err) {
    const known = isStoreUnavailable(err) ? remembered() : undefined;
    if (known === undefined) throw err;
    return known;
  }
}

export function rememberingServiceStore(store: ServiceStore): ServiceStore {
  const sessions = new Memory<OwnedSession>();
  const users = new Memory<string>();
  let tokens: number | undefined;
  const get = (id: string) => orRemembered(() => store.get(id), () => sessions.get(id), (s) => sessions.set(id, s));
  return Object.assign(Object.create(store) as ServiceStore, {
    get,
    async owned(id: string, owner: string) {
      let s: OwnedSession | undefined;
      try {
        s = await store.get(id);
      } catch (err) {
        if (!isStoreUnavailable(err)) throw err;
        // Only what this user was shown lately is theirs for sure: anything else — another user's
        // session, no session, or one of theirs not read lately — is one and the same answer.
        const known = sessions.get(id);
        if (known?.owner === owner) return known;
        throw new OwnershipUnknownError(err);
      }
      sessions.set(id, s);
      return s && s.owner === owner ? s : undefined;
    },
    userForToken: (token: string) => orRemembered(() => store.userForToken(token), () => users.get(hashToken(token)), (user) => users.set(hashToken(token), user)),
    tokenCount: () => orRemembered(() => store.tokenCount(), () => tokens, (n) => (tokens = n)),
    async update(id: string, changes: Parameters<ServiceStore['update']>[1]) {
      try {
        const s = await store.update(id, changes);
        sessions.set(id, s);
        return s;
      } catch (err) {
        // The status is the engine's, noted here for listing: it is written again on the next read.
        const known = sessions.get(id);
        const statusOnly = Object.keys(changes).every((k) => k === 'status');
        if (!isStoreUnavailable(err) || !known || !statusOnly) throw err;
        return { ...known, ...changes };
      }
    },
    async list(f: Parameters<ServiceStore['list']>[0]) {
      const page = await store.list(f);
      // A user's own sessions, as their list showed them, stay theirs while the database is away.
      for (const s of page.sessions) sessions.set(s.research_id, s);
      return page;
    },
    async remove(id: string) {
      await store.remove(id);
      sessions.set(id, undefined);
    },
    async markDeleted(id: string) {
      await store.markDeleted(id);
      sessions.set(id, undefined);
    },
    close: () => store.close(),
  });
}
