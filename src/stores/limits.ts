// Limits that every `serve` replica on one store enforces together: request counts per rate-limit
// window and the event streams each user holds open, kept in the service store's database (the
// SQLite file of the data directory, or PostgreSQL with DATABASE_URL). A stream is a lease: its
// replica renews it while the stream is open, so the streams of a replica that died stop counting
// once their leases run out.
import type Database from 'better-sqlite3';
import { openSqlite, statementCache } from './sqlite';

export interface WindowCount {
  /** Requests of this key in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

export interface SharedLimits {
  /** Counts one request of `key` in the current fixed window of `windowMs`. */
  hit(key: string, windowMs: number, now?: number): Promise<WindowCount>;
  /** Takes one of `user`'s stream slots when fewer than `max` live leases are held; false otherwise. */
  acquireStream(lease: StreamLease, max: number, now?: number): Promise<boolean>;
  /** Moves the expiry of every lease of `replica` to `expiresAt`. */
  renewStreams(replica: string, expiresAt: number): Promise<void>;
  releaseStream(streamId: string): Promise<void>;
  /** Live leases of `user` (for status lines and tests). */
  streamsOf(user: string, now?: number): Promise<number>;
  close(): Promise<void>;
}

export interface StreamLease {
  stream_id: string;
  user: string;
  replica: string;
  expires_at: number;
}

/** The window `now` falls in: fixed windows from the epoch, the same on every replica. */
export const windowStart = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs;

/** Rows of windows this much older than the window are removed (the table holds one row per key). */
const SWEEP_EVERY_MS = 60_000;

export class SqliteSharedLimits implements SharedLimits {
  private readonly db: Database.Database;
  private readonly sql: (sql: string) => Database.Statement;
  private lastSweep = 0;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.sql = statementCache(this.db);
    // Counters and leases, not records: a commit need not wait for the disk (WAL keeps them consistent).
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS stream_leases (stream_id TEXT PRIMARY KEY, user TEXT NOT NULL, replica TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS stream_leases_by_user ON stream_leases (user, expires_at);
      CREATE INDEX IF NOT EXISTS stream_leases_by_replica ON stream_leases (replica);
    `);
  }

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    const row = this
      .sql(
        `INSERT INTO rate_windows (key, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (key) DO UPDATE SET count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END, window_start = excluded.window_start
         RETURNING count`,
      )
      .get(key, start) as { count: number };
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      this.sql('DELETE FROM rate_windows WHERE window_start < ?').run(start - windowMs);
    }
    return { count: row.count, resetMs: start + windowMs - now };
  }

  async acquireStream(lease: StreamLease, max: number, now = Date.now()): Promise<boolean> {
    return this.db.transaction(() => {
      this.sql('DELETE FROM stream_leases WHERE user = ? AND expires_at < ?').run(lease.user, now);
      const held = (this.sql('SELECT count(*) AS n FROM stream_leases WHERE user = ?').get(lease.user) as { n: number }).n;
      if (held >= max) return false;
      this.sql('INSERT OR REPLACE INTO stream_leases (stream_id, user, replica, expires_at) VALUES (?, ?, ?, ?)').run(lease.stream_id, lease.user, lease.replica, lease.expires_at);
      return true;
    }).immediate();
  }

  async renewStreams(replica: string, expiresAt: number): Promise<void> {
    this.sql('UPDATE stream_leases SET expires_at = ? WHERE replica = ?').run(expiresAt, replica);
  }

  async releaseStream(streamId: string): Promise<void> {
    this.sql('DELETE FROM stream_leases WHERE stream_id = ?').run(streamId);
  }

  async streamsOf(user: string, now = Date.now()): Promise<number> {
    return (this.sql('SELECT count(*) AS n FROM stream_leases WHERE user = ? AND expires_at >= ?').get(user, now) as { n: number }).n;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
