// Which URL was fetched when, into which artifact: a URL fetched again within the TTL — in this
// session or another — is served from the artifact store instead of the network. Beside it, which
// session uses which artifact: a page shared by two sessions stays until neither uses it.
import type Database from 'better-sqlite3';
import { openSqliteFile } from './sqlite';
import type { FetchedPage } from '../domain/types';

export type CachedFetch = FetchedPage & { url: string };

export interface FetchCache {
  fresh(url: string, ttlSeconds: number, now?: number): Promise<CachedFetch | undefined>;
  put(entry: CachedFetch): Promise<void>;
  /** Drops cached fetches whose artifact is gone (a deleted session's). */
  forget(fileIds: string[]): Promise<void>;
  /** Records that a session uses these artifacts (idempotent: a retried activity records nothing new). */
  adopt(researchId: string, fileIds: string[]): Promise<void>;
  /**
   * Drops the session's references, in one transaction with: which of its artifacts (those it
   * referenced and `candidates`) no session references any more, whose cached fetches are dropped
   * too so that no session adopts them from the cache meanwhile. Returns those ids.
   */
  release(researchId: string, candidates: string[]): Promise<string[]>;
  /** The sessions that reference this artifact. */
  users(fileId: string): Promise<string[]>;
  close(): Promise<void>;
}

export class SqliteFetchCache implements FetchCache {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openSqliteFile(file);
    this.db.exec(`CREATE TABLE IF NOT EXISTS fetches (
      url TEXT PRIMARY KEY, file_id TEXT NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL,
      final_url TEXT NOT NULL, status INTEGER NOT NULL, size INTEGER NOT NULL, fetched_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS artifact_refs (research_id TEXT NOT NULL, file_id TEXT NOT NULL, PRIMARY KEY (research_id, file_id));
      CREATE INDEX IF NOT EXISTS artifact_refs_by_file ON artifact_refs (file_id);`);
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

  async adopt(researchId: string, fileIds: string[]): Promise<void> {
    const add = this.db.prepare('INSERT OR IGNORE INTO artifact_refs (research_id, file_id) VALUES (?, ?)');
    this.db.transaction(() => fileIds.forEach((id) => add.run(researchId, id)))();
  }

  async release(researchId: string, candidates: string[]): Promise<string[]> {
    const held = this.db.prepare('SELECT file_id FROM artifact_refs WHERE research_id = ?');
    const drop = this.db.prepare('DELETE FROM artifact_refs WHERE research_id = ?');
    const used = this.db.prepare('SELECT 1 FROM artifact_refs WHERE file_id = ? LIMIT 1');
    const forget = this.db.prepare('DELETE FROM fetches WHERE file_id = ?');
    return this.db
      .transaction(() => {
        const mine = new Set([...candidates, ...(held.all(researchId) as { file_id: string }[]).map((r) => r.file_id)]);
        drop.run(researchId);
        const unused = [...mine].filter((id) => !used.get(id));
        unused.forEach((id) => forget.run(id));
        return unused;
      })
      .immediate();
  }

  async users(fileId: string): Promise<string[]> {
    return (this.db.prepare('SELECT research_id FROM artifact_refs WHERE file_id = ? ORDER BY research_id').all(fileId) as { research_id: string }[]).map((r) => r.research_id);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
