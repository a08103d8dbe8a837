// Who may open one more event stream: at most `maxStreams` on this replica (503 with Retry-After
// past it, before the process or the engine is hurt) and at most `maxPerUser` for one user across
// every replica on the store (429), each stream a lease in the store's database that this replica
// renews while the stream is open. While the database cannot be reached, the per-user cap is
// counted on this replica alone.
import { randomUUID } from 'node:crypto';
import type { SharedLimits } from '../stores/limits';

export class TooManyStreamsError extends Error {}

/** This replica holds the most streams it takes; the caller should come back after `retryAfterSeconds`. */
export class ReplicaFullError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export interface SlotOptions {
  maxPerUser: number;
  /** Streams this replica holds at most, whoever's. */
  maxStreams: number;
  /** How long a lease lives unless renewed; renewed at a third of it. */
  leaseMs: number;
}

export class StreamSlots {
  readonly replica = randomUUID();
  private open = 0;
  private readonly localPerUser = new Map<string, number>();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly limits: SharedLimits | undefined,
    private readonly options: SlotOptions,
  ) {
    this.renewal = setInterval(() => void this.renew(), Math.max(1_000, Math.floor(options.leaseMs / 3)));
    this.renewal.unref();
  }

  /** Streams open on this replica. */
  get held(): number {
    return this.open;
  }

  /** Takes a slot for `user`, or throws ReplicaFullError / TooManyStreamsError; the returned function gives it back (once). */
  async take(user: string): Promise<() => void> {
    if (this.open >= this.options.maxStreams) {
      // Spread the retries of a storm over 5–15 s instead of bringing them back together.
      throw new ReplicaFullError(`this server holds ${this.open} event streams, the most it takes (EVENT_STREAMS_MAX); try again shortly`, 5 + Math.floor(Math.random() * 11));
    }
    this.open++;
    const local = this.localPerUser.get(user) ?? 0;
    const streamId = randomUUID();
    let shared = false;
    try {
      if (this.limits) {
        shared = await this.limits
          .acquireStream({ stream_id: streamId, user, replica: this.replica, expires_at: Date.now() + this.options.leaseMs }, this.options.maxPerUser)
          .then((ok) => {
            if (!ok) throw new TooManyStreamsError(tooMany(user, this.options.maxPerUser, 'across the servers'));
            return true;
          })
          .catch((err: unknown) => {
            if (err instanceof TooManyStreamsError) throw err;
            return false;
          });
      }
      if (!shared && local >= this.options.maxPerUser) throw new TooManyStreamsError(tooMany(user, local, 'on this server'));
    } catch (err) {
      this.open--;
      throw err;
    }
    this.localPerUser.set(user, local + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const n = (this.localPerUser.get(user) ?? 1) - 1;
      if (n > 0) this.localPerUser.set(user, n);
      else this.localPerUser.delete(user);
      // A release the database misses runs out with its lease.
      if (shared) this.limits?.releaseStream(streamId).catch(() => undefined);
    };
  }

  private async renew(): Promise<void> {
    if (!this.limits || !this.open) return;
    await this.limits.renewStreams(this.replica, Date.now() + this.options.leaseMs).catch(() => undefined);
  }

  close(): void {
    clearInterval(this.renewal);
  }
}

const tooMany = (user: string, n: number, where: string) => `${user} has ${n} event streams open ${where}, the most allowed (EVENT_STREAMS_PER_USER); close one first`;
