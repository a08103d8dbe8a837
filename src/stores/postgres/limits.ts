// The replicas' shared limits (rate-limit windows, event stream leases) in PostgreSQL: every `serve`
// on one DATABASE_URL counts against the same numbers. A user's streams are counted and taken under
// a transaction-scoped advisory lock on the user, so two replicas never both take the last slot.
import { windowStart, type SharedLimits, type StreamLease, type WindowCount } from '../limits';
import type { PgDatabase } from './database';

const SWEEP_EVERY_MS = 60_000;

export class PgSharedLimits implements SharedLimits {
  private lastSweep = 0;

  constructor(private readonly db: PgDatabase) {}

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    const { rows } = await this.db.query<{ count: number }>(
      `INSERT INTO rate_windows (key, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key) DO UPDATE SET count = CASE WHEN rate_windows.window_start = excluded.window_start THEN rate_windows.count + 1 ELSE 1 END, window_start = excluded.window_start
       RETURNING count`,
      [key, start],
    );
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.db.query('DELETE FROM rate_windows WHERE window_start < $1', [start - windowMs]);
    }
    return { count: Number(rows[0].count), resetMs: start + windowMs - now };
  }

  async acquireStream(lease: StreamLease, max: number, now = Date.now()): Promise<boolean> {
    return this.db.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('stream_leases:' || $1))", [lease.user]);
      await client.query('DELETE FROM stream_leases WHERE "user" = $1 AND expires_at < $2', [lease.user, now]);
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM stream_leases WHERE "user" = $1', [lease.user]);
      if (Number(rows[0].n) >= max) return false;
      await client.query(
        'INSERT INTO stream_leases (stream_id, "user", replica, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (stream_id) DO UPDATE SET expires_at = excluded.expires_at',
        [lease.stream_id, lease.user, lease.replica, lease.expires_at],
      );
      return true;
    });
  }

  async renewStreams(replica: string, expiresAt: number): Promise<void> {
    await this.db.query('UPDATE stream_leases SET expires_at = $1 WHERE replica = $2', [expiresAt, replica]);
  }

  async releaseStream(streamId: string): Promise<void> {
    await this.db.query('DELETE FROM stream_leases WHERE stream_id = $1', [streamId]);
  }

  async streamsOf(user: string, now = Date.now()): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM stream_leases WHERE "user" = $1 AND expires_at >= $2', [user, now]);
    return Number(rows[0].n);
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}
