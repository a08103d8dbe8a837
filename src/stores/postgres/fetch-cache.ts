// The fetch cache in shared PostgreSQL: a page one worker fetched is served to every other worker
// from the shared artifact store within the TTL.
import type { CachedFetch, FetchCache } from '../fetch-cache';
import type { PgDatabase } from './database';

export class PgFetchCache implements FetchCache {
  constructor(private readonly db: PgDatabase) {}

  async fresh(url: string, ttlSeconds: number, now = Date.now()): Promise<CachedFetch | undefined> {
    if (ttlSeconds <= 0) return undefined;
    const { rows } = await this.db.query<CachedFetch>('SELECT * FROM fetches WHERE url = $1', [url]);
    const row = rows[0];
    return row && now - Date.parse(row.fetched_at) <= ttlSeconds * 1000 ? row : undefined;
  }

  async put(e: CachedFetch): Promise<void> {
    await this.db.query(
      `INSERT INTO fetches (url, file_id, kind, content_type, final_url, status, size, fetched_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (url) DO UPDATE SET file_id = EXCLUDED.file_id, kind = EXCLUDED.kind, content_type = EXCLUDED.content_type,
         final_url = EXCLUDED.final_url, status = EXCLUDED.status, size = EXCLUDED.size, fetched_at = EXCLUDED.fetched_at`,
      [e.url, e.file_id, e.kind, e.content_type, e.final_url, e.status, e.size, e.fetched_at],
    );
  }

  async forget(fileIds: string[]): Promise<void> {
    if (fileIds.length) await this.db.query('DELETE FROM fetches WHERE file_id = ANY($1)', [fileIds]);
  }

  async adopt(researchId: string, fileIds: string[]): Promise<void> {
    if (!fileIds.length) return;
    await this.db.query('INSERT INTO artifact_refs (research_id, file_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [researchId, fileIds]);
  }

  async release(researchId: string, candidates: string[]): Promise<string[]> {
    return this.db.transaction(async (c) => {
      const { rows: held } = await c.query<{ file_id: string }>('DELETE FROM artifact_refs WHERE research_id = $1 RETURNING file_id', [researchId]);
      const mine = [...new Set([...candidates, ...held.map((r) => r.file_id)])];
      if (!mine.length) return [];
      const { rows: used } = await c.query<{ file_id: string }>('SELECT file_id FROM artifact_refs WHERE file_id = ANY($1)', [mine]);
      const kept = new Set(used.map((r) => r.file_id));
      const unused = mine.filter((id) => !kept.has(id));
      if (unused.length) await c.query('DELETE FROM fetches WHERE file_id = ANY($1)', [unused]);
      return unused;
    });
  }

  async users(fileId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ research_id: string }>('SELECT research_id FROM artifact_refs WHERE file_id = $1 ORDER BY research_id', [fileId]);
    return rows.map((r) => r.research_id);
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}
