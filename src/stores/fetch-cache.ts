// Which URL was fetched when, into which artifact: a URL fetched again within the TTL — in this
// session or another — is served from the artifact store instead of the network.
import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite';
import type { FetchedPage } from '../domain/types';

export type CachedFetch = FetchedPage & { url: string };

export interface FetchCache {
  fresh(url: string, ttlSeconds: number, now?: number): Promise<CachedFetch | undefined>;
  put(entry: CachedFetch): Promise<void>;
  /** Drops cached fetches whose artifact is gone (a deleted session's). */
  forget(fileIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export class SqliteFetchCache implements FetchCache {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(`CREATE TABLE IF NOT EXISTS fetches (
      url TEXT PRIMARY KEY, file_id TEXT NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL,
      final_url TEXT NOT NULL, status INTEGER NOT NULL, size INTEGER NOT NULL, fetched_at TEXT NOT NULL)`);
  }

  async fresh(url: string, ttlSeconds: number, now = Date.now()): Promise<CachedFetch | undefined> {
    if (ttlSeconds <= 0) return undefined;
    const row = this.db.prepare('SELECT * FROM fetches WHERE url = ?').get(url) as CachedFetch | undefined;
    return row && now - Date.parse(row.fetched_at) <= ttlSeconds * 1000 ? row : undefined;
  }

  async put(entry: CachedFetch): Promise<void> {
    this.db
      .prepare('INSERT OR REPLACE INTO fetches (url, file_id, kind, content_type, final_url, status, size, fetched_at) VALUES (@url, @file_id, @kind, @content_type, @final_url, @status, @size, @fetched_at)')
      .run(entry);
  }

  async forget(fileIds: string[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM fetches WHERE file_id = ?');
    this.db.transaction(() => fileIds.forEach((id) => del.run(id)))();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
