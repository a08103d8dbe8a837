// The engine's state of a session (a query, answered by a worker) kept while nothing can have
// changed it: while an event stream watches the session's workflow history and the history has not
// grown since the state was read. A status page polling a session that streams is then answered
// without the engine, and a reconnect storm's watchers and the status pages between them ask the
// engine once per change, not once per request. Unwatched sessions are asked every time. A state
// read from the session store because a part is away is never kept.
import type { StateRead } from '../client/reads';

interface Kept {
  /** The history's version the state was read at. */
  version: number;
  state: Promise<StateRead>;
}

export class LiveStates {
  /** Per watched session: how many times its history grew since the watch was in place. */
  private readonly versions = new Map<string, number>();
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly read: (id: string) => Promise<StateRead>) {}

  /** The session's state: the one kept for the history as it stands, else read now (once for every caller meanwhile). */
  get(id: string): Promise<StateRead> {
    const version = this.versions.get(id);
    if (version === undefined) return this.read(id);
    const kept = this.kept.get(id);
    if (kept?.version === version) return kept.state;
    const state = this.read(id);
    const entry = { version, state };
    this.kept.set(id, entry);
    // A failed read is not kept, nor the store's copy read while a part is away.
    const drop = () => this.kept.get(id) === entry && this.kept.delete(id);
    state.then((r) => r.away && drop(), drop);
    return state;
  }

  /** The watch on the session's history is in place: growth from now on is reported. */
  watching(id: string): void {
    if (!this.versions.has(id)) this.versions.set(id, 0);
  }

  /** The history grew, or something this server did may have changed the session: what is kept is old. */
  changed(id: string): void {
    const version = this.versions.get(id);
    if (version !== undefined) this.versions.set(id, version + 1);
    this.kept.delete(id);
  }

  /** The watch ended or has a gap (the run closed; the next run is not watched yet): nothing is kept. */
  unwatched(id: string): void {
    this.versions.delete(id);
    this.kept.delete(id);
  }

  /** Sessions watched now (for tests). */
  get size(): number {
    return this.versions.size;
  }
}
