// Session store: the seed's `research-sessions` collection in a SQLite file. Writes are
// idempotent (replace by research_id; events keyed by seq), so activities may retry freely.
import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite';
import type { ResearchEvent, ResearchSnapshot, ResearchStatus } from '../domain/types';

export interface SessionSummary {
  research_id: string;
  status: ResearchStatus;
  initial_query: string;
  created_at: string;
  updated_at: string;
}

export interface SessionListOptions {
  limit?: number;
  cursor?: string;
  status?: string;
}

export interface SessionPage {
  sessions: SessionSummary[];
  next_cursor?: string;
}

export interface SessionStore {
  save(snapshot: ResearchSnapshot, events: ResearchEvent[]): Promise<void>;
  get(researchId: string): Promise<ResearchSnapshot | undefined>;
  events(researchId: string, afterSeq?: number, limit?: number): Promise<ResearchEvent[]>;
  list(options?: SessionListOptions): Promise<SessionPage>;
  /** The newest completed run a schedule started before `beforeId`'s run (its snapshot), if any. */
  previousScheduledRun(scheduleId: string, beforeId: string): Promise<ResearchSnapshot | undefined>;
  /** Writes (or rewrites, on a retry) one AgentStream event of a model call. */
  appendStream(researchId: string, callKey: string, chunk: number, event: ResearchEvent): Promise<void>;
  /** How many AgentStream events the session has, for its bound. */
  streamCount(researchId: string): Promise<number>;
  /** AgentStream events after `afterSeq`, in order (they are never in workflow history). */
  streamEvents(researchId: string, afterSeq?: number, limit?: number): Promise<ResearchEvent[]>;
  /** Removes the session and its events (delete is final: the service checks ownership first). */
  delete(researchId: string): Promise<void>;
  /** Artifact ids the stored snapshots refer to, leaving out one session's (any *file_id field). */
  artifactIdsExcept(researchId: string): Promise<Set<string>>;
  close(): Promise<void>;
}

export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;

  constructor(file: string, private readonly collection = 'research-sessions') {
    this.db = openSqlite(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        collection TEXT NOT NULL,
        research_id TEXT NOT NULL,
        status TEXT NOT NULL,
        initial_query TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        PRIMARY KEY (collection, research_id)
      );
      CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions (collection, created_at DESC, research_id DESC);
      CREATE TABLE IF NOT EXISTS session_events (
        collection TEXT NOT NULL,
        research_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (collection, research_id, seq)
      );
      CREATE TABLE IF NOT EXISTS session_stream (
        collection TEXT NOT NULL,
        research_id TEXT NOT NULL,
        call_key TEXT NOT NULL,
        chunk INTEGER NOT NULL,
        seq REAL NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (collection, research_id, call_key, chunk)
      );
      CREATE INDEX IF NOT EXISTS session_stream_by_seq ON session_stream (collection, research_id, seq);
    `);
  }

  async save(snapshot: ResearchSnapshot, events: ResearchEvent[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM sessions WHERE collection = ? AND research_id = ?');
    const ins = this.db.prepare(
      'INSERT INTO sessions (collection, research_id, status, initial_query, created_at, updated_at, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const ev = this.db.prepare('INSERT OR REPLACE INTO session_events (collection, research_id, seq, event) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      del.run(this.collection, snapshot.research_id);
      ins.run(
        this.collection,
        snapshot.research_id,
        snapshot.status,
        snapshot.initial_query,
        snapshot.created_at,
        snapshot.updated_at,
        JSON.stringify(snapshot),
      );
      for (const e of events) ev.run(this.collection, snapshot.research_id, e.seq, JSON.stringify(e));
    })();
  }

  async get(researchId: string): Promise<ResearchSnapshot | undefined> {
    const row = this.db
      .prepare('SELECT snapshot FROM sessions WHERE collection = ? AND research_id = ?')
      .get(this.collection, researchId) as { snapshot: string } | undefined;
    return row ? (JSON.parse(row.snapshot) as ResearchSnapshot) : undefined;
  }

  async events(researchId: string, afterSeq = 0, limit = 10_000): Promise<ResearchEvent[]> {
    const rows = this.db
      .prepare('SELECT event FROM session_events WHERE collection = ? AND research_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(this.collection, researchId, afterSeq, limit) as { event: string }[];
    return rows.map((r) => JSON.parse(r.event) as ResearchEvent);
  }

  async appendStream(researchId: string, callKey: string, chunk: number, event: ResearchEvent): Promise<void> {
    this.db
      .prepare('INSERT OR REPLACE INTO session_stream (collection, research_id, call_key, chunk, seq, event) VALUES (?, ?, ?, ?, ?, ?)')
      .run(this.collection, researchId, callKey, chunk, event.seq, JSON.stringify(event));
  }

  async streamCount(researchId: string): Promise<number> {
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM session_stream WHERE collection = ? AND research_id = ?')
      .get(this.collection, researchId) as { n: number };
    return row.n;
  }

  async streamEvents(researchId: string, afterSeq = 0, limit = 10_000): Promise<ResearchEvent[]> {
    const rows = this.db
      .prepare('SELECT event FROM session_stream WHERE collection = ? AND research_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(this.collection, researchId, afterSeq, limit) as { event: string }[];
    return rows.map((r) => JSON.parse(r.event) as ResearchEvent);
  }

  /** Newest first. The cursor is opaque to callers: "<created_at>|<research_id>" of the last row. */
  async list(options: SessionListOptions = {}): Promise<SessionPage> {
    const query = sessionPageQuery(this.collection, options, () => '?');
    return sessionPage(this.db.prepare(query.sql).all(...query.params) as SessionSummary[], query.limit);
  }

  async previousScheduledRun(scheduleId: string, beforeId: string): Promise<ResearchSnapshot | undefined> {
    const row = this.db
      .prepare(
        `SELECT snapshot FROM sessions WHERE collection = ? AND status = 'completed' AND research_id != ?
           AND json_extract(snapshot, '$.settings.schedule_id') = ?
         ORDER BY created_at DESC, research_id DESC LIMIT 1`,
      )
      .get(this.collection, beforeId, scheduleId) as { snapshot: string } | undefined;
    return row ? (JSON.parse(row.snapshot) as ResearchSnapshot) : undefined;
  }

  async delete(researchId: string): Promise<void> {
    this.db.transaction(() => {
      for (const table of ['sessions', 'session_events', 'session_stream']) {
        this.db.prepare(`DELETE FROM ${table} WHERE collection = ? AND research_id = ?`).run(this.collection, researchId);
      }
    })();
  }

  async artifactIdsExcept(researchId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    const rows = this.db.prepare('SELECT snapshot FROM sessions WHERE research_id != ?').iterate(researchId) as Iterable<{ snapshot: string }>;
    for (const row of rows) for (const id of artifactIdsIn(row.snapshot)) ids.add(id);
    return ids;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

export function artifactIdsIn(json: string): string[] {
  return [...json.matchAll(/"[a-z_]*file_id":"([a-f0-9]{64})"/g)].map((m) => m[1]);
}

/** The list cursor is opaque to callers: base64url of "<created_at>|<research_id>" of the last row. */
export const encodeSessionCursor = (row: { created_at: string; research_id: string }): string =>
  Buffer.from(`${row.created_at}|${row.research_id}`).toString('base64url');

export function decodeSessionCursor(cursor: string): { created: string; id: string } {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const sep = decoded.indexOf('|');
  if (sep < 0) throw new Error('invalid cursor');
  return { created: decoded.slice(0, sep), id: decoded.slice(sep + 1) };
}

/**
 * The one paging query of the SQL session stores, newest first: the filter and the cursor's
 * position as a row comparison, asking one row more than the page to know whether another follows.
 * `placeholder(n)` writes the nth parameter in the database's dialect (`?` or `$n`).
 */
export function sessionPageQuery(collection: string, options: SessionListOptions, placeholder: (n: number) => string): { sql: string; params: unknown[]; limit: number } {
  const limit = Math.max(1, Math.min(options.limit ?? 20, 200));
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return placeholder(params.length);
  };
  const where = [`collection = ${param(collection)}`];
  if (options.status) where.push(`status = ${param(options.status)}`);
  if (options.cursor) {
    const { created, id } = decodeSessionCursor(options.cursor);
    where.push(`(created_at, research_id) < (${param(created)}, ${param(id)})`);
  }
  const sql = `SELECT research_id, status, initial_query, created_at, updated_at FROM sessions WHERE ${where.join(' AND ')}
    ORDER BY created_at DESC, research_id DESC LIMIT ${param(limit + 1)}`;
  return { sql, params, limit };
}

/** The page from the rows a `sessionPageQuery` returned, with the cursor of its last row when more follow. */
export function sessionPage(rows: SessionSummary[], limit: number): SessionPage {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { sessions: page, next_cursor: rows.length > limit && last ? encodeSessionCursor(last) : undefined };
}
