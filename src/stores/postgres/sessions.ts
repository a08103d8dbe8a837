// The session store in shared PostgreSQL: same contract as SqliteSessionStore, so `list` on any
// machine sees every worker's sessions.
import type { ResearchEvent, ResearchSnapshot } from '../../domain/types';
import { artifactIdsIn, sessionPage, sessionPageQuery, type SessionListOptions, type SessionPage, type SessionStore, type SessionSummary } from '../sessions';
import type { PgDatabase } from './database';

export class PgSessionStore implements SessionStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly collection = 'research-sessions',
  ) {}

  async save(snapshot: ResearchSnapshot, events: ResearchEvent[]): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query(
        `INSERT INTO sessions (collection, research_id, status, initial_query, created_at, updated_at, snapshot)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (collection, research_id) DO UPDATE SET status = EXCLUDED.status, initial_query = EXCLUDED.initial_query,
           created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, snapshot = EXCLUDED.snapshot`,
        [this.collection, snapshot.research_id, snapshot.status, snapshot.initial_query, snapshot.created_at, snapshot.updated_at, JSON.stringify(snapshot)],
      );
      if (!events.length) return;
      await c.query(
        `INSERT INTO session_events (collection, research_id, seq, event)
         SELECT $1, $2, * FROM unnest($3::int[], $4::text[])
         ON CONFLICT (collection, research_id, seq) DO UPDATE SET event = EXCLUDED.event`,
        [this.collection, snapshot.research_id, events.map((e) => e.seq), events.map((e) => JSON.stringify(e))],
      );
    });
  }

  async get(researchId: string): Promise<ResearchSnapshot | undefined> {
    const { rows } = await this.db.query<{ snapshot: string }>('SELECT snapshot FROM sessions WHERE collection = $1 AND research_id = $2', [this.collection, researchId]);
    return rows[0] ? (JSON.parse(rows[0].snapshot) as ResearchSnapshot) : undefined;
  }

  async events(researchId: string, afterSeq = 0, limit = 10_000): Promise<ResearchEvent[]> {
    const { rows } = await this.db.query<{ event: string }>(
      'SELECT event FROM session_events WHERE collection = $1 AND research_id = $2 AND seq > $3 ORDER BY seq LIMIT $4',
      [this.collection, researchId, afterSeq, limit],
    );
    return rows.map((r) => JSON.parse(r.event) as ResearchEvent);
  }

  async appendStream(researchId: string, callKey: string, chunk: number, event: ResearchEvent): Promise<void> {
    await this.db.query(
      `INSERT INTO session_stream (collection, research_id, call_key, chunk, seq, event) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (collection, research_id, call_key, chunk) DO UPDATE SET seq = EXCLUDED.seq, event = EXCLUDED.event`,
      [this.collection, researchId, callKey, chunk, event.seq, JSON.stringify(event)],
    );
  }

  async streamCount(researchId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM session_stream WHERE collection = $1 AND research_id = $2', [this.collection, researchId]);
    return Number(rows[0].n);
  }

  async streamEvents(researchId: string, afterSeq = 0, limit = 10_000): Promise<ResearchEvent[]> {
    const { rows } = await this.db.query<{ event: string }>(
      'SELECT event FROM session_stream WHERE collection = $1 AND research_id = $2 AND seq > $3 ORDER BY seq LIMIT $4',
      [this.collection, researchId, afterSeq, limit],
    );
    return rows.map((r) => JSON.parse(r.event) as ResearchEvent);
  }

  async list(options: SessionListOptions = {}): Promise<SessionPage> {
    const query = sessionPageQuery(this.collection, options, (n) => `$${n}`);
    const { rows } = await this.db.query<SessionSummary>(query.sql, query.params);
    return sessionPage(rows, query.limit);
  }

  async previousScheduledRun(scheduleId: string, beforeId: string): Promise<ResearchSnapshot | undefined> {
    const { rows } = await this.db.query<{ snapshot: string }>(
      `SELECT snapshot FROM sessions WHERE collection = $1 AND status = 'completed' AND research_id <> $2
         AND (snapshot::jsonb -> 'settings' ->> 'schedule_id') = $3
       ORDER BY created_at DESC, research_id DESC LIMIT 1`,
      [this.collection, beforeId, scheduleId],
    );
    return rows[0] ? (JSON.parse(rows[0].snapshot) as ResearchSnapshot) : undefined;
  }

  async delete(researchId: string): Promise<void> {
    await this.db.transaction(async (c) => {
      for (const table of ['sessions', 'session_events', 'session_stream']) {
        await c.query(`DELETE FROM ${table} WHERE collection = $1 AND research_id = $2`, [this.collection, researchId]);
      }
    });
  }

  async artifactIdsExcept(researchId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    const { rows } = await this.db.query<{ snapshot: string }>('SELECT snapshot FROM sessions WHERE research_id <> $1', [researchId]);
    for (const row of rows) for (const id of artifactIdsIn(row.snapshot)) ids.add(id);
    return ids;
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}
