// Sessions' statuses as the engine has them (a query a worker answers), noted in the service store
// for listing. A list waits for them only so long: a worker busy with many sessions (or away) must
// not hold it, so after that it shows the statuses the store has, and the reads still going note
// theirs for the next list. One read per session at a time, however many lists ask.
import { DeadlineError, withDeadline } from './deadline';

/** How long a list (or a refusal naming the session's status) waits for the engine's statuses. */
export const LIST_REFRESH_MS = 2_000;

export class StatusRefresh {
  private readonly reading = new Map<string, Promise<string | undefined>>();

  /** `read`: the engine's status, noted in the store; undefined when it cannot be read (never throws). */
  constructor(private readonly read: (id: string) => Promise<string | undefined>) {}

  /** The session's current status, read once for every caller meanwhile. */
  status(id: string): Promise<string | undefined> {
    const pending = this.reading.get(id);
    if (pending) return pending;
    const read = this.read(id).finally(() => this.reading.delete(id));
    this.reading.set(id, read);
    return read;
  }

  /** The status if read within `ms`, else undefined (the read goes on and notes it). */
  statusWithin(id: string, ms = LIST_REFRESH_MS): Promise<string | undefined> {
    return withDeadline(this.status(id), ms).catch(() => undefined);
  }

  /** Reads every status, waiting at most `ms` for them (those read by then are noted). */
  async within(ids: string[], ms = LIST_REFRESH_MS): Promise<void> {
    await withDeadline(Promise.all(ids.map((id) => this.status(id))), ms).catch((err: unknown) => {
      if (!(err instanceof DeadlineError)) throw err;
    });
  }
}
