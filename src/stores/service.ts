// What the service knows beyond the research engine: API tokens (hashed), who owns which session,
// drafts that have no workflow yet, favourites and share tokens. One SQLite file in the data dir.
import type Database from 'better-sqlite3';
import { openSqlite, statementCache } from './sqlite';
import { createHash, randomBytes } from 'node:crypto';
import { SETTLED_STATUSES, USER_NAME, USER_NAME_RULE } from '../domain/names';
import type { InputContext } from '../domain/panel';

export interface OwnedSession {
  research_id: string;
  owner: string;
  query: string;
  status: string;
  favourite: boolean;
  /** Settings of a draft (JSON), kept until it is approved. */
  settings: Record<string, unknown>;
  /** Input contexts a draft carries until it starts (then read as sources). */
  contexts: InputContext[];
  /** A draft's edited plan (sub-questions, outline, brief), applied when it is approved. */
  plan: Record<string, unknown> | null;
  share_token: string | null;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

interface Row extends Omit<OwnedSession, 'favourite' | 'settings' | 'contexts' | 'plan'> {
  favourite: number;
  settings: string;
  contexts: string | null;
  plan: string | null;
}

export interface ListFilter {
  /** Absent: every owner's sessions (an operator's view). */
  owner?: string;
  limit?: number;
  cursor?: string;
  status?: string;
  favourite?: boolean;
  q?: string;
}

export class InvalidCursorError extends Error {}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface ServiceStore {
  /** A new token for `user`; only its hash is kept, so this is the one time it is seen. */
  createToken(user: string, label?: string): Promise<string>;
  /** Stores a token given from outside (DEEP_RESEARCH_OPERATOR_TOKEN) for `user`; false if it was there already. */
  registerToken(user: string, token: string, label?: string): Promise<boolean>;
  userForToken(token: string): Promise<string | undefined>;
  tokenCount(): Promise<number>;
  revokeTokens(user: string): Promise<number>;
  insert(s: NewOwnedSession): Promise<OwnedSession>;
  exists(researchId: string): Promise<boolean>;
  get(researchId: string): Promise<OwnedSession | undefined>;
  /** The session if `owner` owns it; anybody else's is as good as absent. */
  owned(researchId: string, owner: string): Promise<OwnedSession | undefined>;
  byShareToken(token: string): Promise<OwnedSession | undefined>;
  update(researchId: string, changes: SessionChanges): Promise<OwnedSession>;
  remove(researchId: string): Promise<void>;
  /** Removes a deleted session's ownership and remembers its id, so nothing adopts it again (a schedule's run list). */
  markDeleted(researchId: string): Promise<void>;
  /** Whether a session of this id was deleted. */
  wasDeleted(researchId: string): Promise<boolean>;
  /** Newest first; the cursor is "<created_at>~<research_id>" of the last row of the page before. */
  list(f: ListFilter): Promise<{ sessions: OwnedSession[]; next_cursor?: string }>;
  /** Sessions of `owner` (absent: of everybody) whose last known status may still change. */
  unsettled(owner?: string): Promise<OwnedSession[]>;
  close(): Promise<void>;
}

export type NewOwnedSession = Omit<OwnedSession, 'favourite' | 'share_token' | 'created_at' | 'updated_at' | 'contexts' | 'plan'> & { favourite?: boolean; contexts?: InputContext[] };
export type SessionChanges = Partial<Pick<OwnedSession, 'query' | 'status' | 'favourite' | 'settings' | 'share_token' | 'contexts' | 'plan'>>;

export const newApiToken = (): string => `drt_${randomBytes(24).toString('base64url')}`;

/**
 * A place in the list: "<created_at>~<research_id>" of the last row shown. Any such place is one
 * to go on from (the rows before it in the list's order), so a caller may also write one.
 */
export const CURSOR = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z~[A-Za-z0-9_.-]{1,64}$/;

export function decodeCursor(cursor: string): { created: string; id: string } {
  if (!CURSOR.test(cursor)) throw new InvalidCursorError('cursor is not a place in the list (a next_cursor: "<created_at>~<research_id>")');
  const sep = cursor.indexOf('~');
  return { created: cursor.slice(0, sep), id: cursor.slice(sep + 1) };
}

export const encodeCursor = (row: { created_at: string; research_id: string }): string => `${row.created_at}~${row.research_id}`;

export class SqliteServiceStore implements ServiceStore {
  private readonly db: Database.Database;
  private readonly sql: (sql: string) => Database.Statement;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.sql = statementCache(this.db);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS api_tokens (
        token_hash TEXT PRIMARY KEY, user TEXT NOT NULL, label TEXT, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS owned_sessions (
        research_id TEXT PRIMARY KEY, owner TEXT NOT NULL, query TEXT NOT NULL, status TEXT NOT NULL,
        favourite INTEGER NOT NULL DEFAULT 0, settings TEXT NOT NULL DEFAULT '{}', share_token TEXT UNIQUE,
        parent_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS owned_by_created ON owned_sessions (owner, created_at DESC, research_id DESC);
      CREATE TABLE IF NOT EXISTS deleted_sessions (research_id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);
    `);
    const columns = this.sql('PRAGMA table_info(owned_sessions)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'contexts')) this.db.exec("ALTER TABLE owned_sessions ADD COLUMN contexts TEXT NOT NULL DEFAULT '[]'");
    if (!columns.some((c) => c.name === 'plan')) this.db.exec('ALTER TABLE owned_sessions ADD COLUMN plan TEXT');
  }

  async createToken(user: string, label?: string): Promise<string> {
    if (!USER_NAME.test(user)) throw new Error(USER_NAME_RULE);
    const token = newApiToken();
    this.sql('INSERT INTO api_tokens (token_hash, user, label, created_at) VALUES (?, ?, ?, ?)').run(hashToken(token), user, label ?? null, new Date().toISOString());
    return token;
  }

  async registerToken(user: string, token: string, label?: string): Promise<boolean> {
    if (!USER_NAME.test(user)) throw new Error(USER_NAME_RULE);
    const result = this.sql('INSERT OR IGNORE INTO api_tokens (token_hash, user, label, created_at) VALUES (?, ?, ?, ?)').run(hashToken(token), user, label ?? null, new Date().toISOString());
    return result.changes > 0;
  }

  async userForToken(token: string): Promise<string | undefined> {
    const row = this.sql('SELECT user FROM api_tokens WHERE token_hash = ?').get(hashToken(token)) as { user: string } | undefined;
    return row?.user;
  }

  async tokenCount(): Promise<number> {
    return (this.sql('SELECT count(*) AS n FROM api_tokens').get() as { n: number }).n;
  }

  async revokeTokens(user: string): Promise<number> {
    return this.sql('DELETE FROM api_tokens WHERE user = ?').run(user).changes;
  }

  async insert(s: NewOwnedSession): Promise<OwnedSession> {
    const now = new Date().toISOString();
    this
      .sql(
        `INSERT INTO owned_sessions (research_id, owner, query, status, favourite, settings, contexts, share_token, parent_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
      )
      .run(s.research_id, s.owner, s.query, s.status, s.favourite ? 1 : 0, JSON.stringify(s.settings), JSON.stringify(s.contexts ?? []), s.parent_id, now, now);
    return (await this.get(s.research_id)) as OwnedSession;
  }

  async exists(researchId: string): Promise<boolean> {
    return !!this.sql('SELECT 1 FROM owned_sessions WHERE research_id = ?').get(researchId);
  }

  async get(researchId: string): Promise<OwnedSession | undefined> {
    const row = this.sql('SELECT * FROM owned_sessions WHERE research_id = ?').get(researchId) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  async owned(researchId: string, owner: string): Promise<OwnedSession | undefined> {
    const s = await this.get(researchId);
    return s && s.owner === owner ? s : undefined;
  }

  async byShareToken(token: string): Promise<OwnedSession | undefined> {
    const row = this.sql('SELECT * FROM owned_sessions WHERE share_token = ?').get(token) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  async update(researchId: string, changes: SessionChanges): Promise<OwnedSession> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      sets.push(`${key} = ?`);
      values.push(key === 'settings' || key === 'contexts' || (key === 'plan' && value !== null) ? JSON.stringify(value) : key === 'favourite' ? (value ? 1 : 0) : value);
    }
    sets.push('updated_at = ?');
    values.push(new Date().toISOString());
    this.sql(`UPDATE owned_sessions SET ${sets.join(', ')} WHERE research_id = ?`).run(...values, researchId);
    return (await this.get(researchId)) as OwnedSession;
  }

  async remove(researchId: string): Promise<void> {
    this.sql('DELETE FROM owned_sessions WHERE research_id = ?').run(researchId);
  }

  async markDeleted(researchId: string): Promise<void> {
    const mark = this.sql('INSERT OR IGNORE INTO deleted_sessions (research_id, deleted_at) VALUES (?, ?)');
    const remove = this.sql('DELETE FROM owned_sessions WHERE research_id = ?');
    this.db.transaction(() => {
      mark.run(researchId, new Date().toISOString());
      remove.run(researchId);
    })();
  }

  async wasDeleted(researchId: string): Promise<boolean> {
    return !!this.sql('SELECT 1 FROM deleted_sessions WHERE research_id = ?').get(researchId);
  }

  async list(f: ListFilter): Promise<{ sessions: OwnedSession[]; next_cursor?: string }> {
    const limit = Math.max(1, Math.min(f.limit ?? 20, 100));
    let where = f.owner === undefined ? '1 = 1' : 'owner = ?';
    const params: unknown[] = f.owner === undefined ? [] : [f.owner];
    if (f.status) {
      where += ' AND status = ?';
      params.push(f.status);
    }
    if (f.favourite !== undefined) {
      where += ' AND favourite = ?';
      params.push(f.favourite ? 1 : 0);
    }
    if (f.q) {
      where += " AND query LIKE ? ESCAPE '\\'";
      params.push(`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (f.cursor) {
      const { created, id } = decodeCursor(f.cursor);
      where += ' AND (created_at < ? OR (created_at = ? AND research_id < ?))';
      params.push(created, created, id);
    }
    const rows = this
      .sql(`SELECT * FROM owned_sessions WHERE ${where} ORDER BY created_at DESC, research_id DESC LIMIT ?`)
      .all(...params, limit + 1) as Row[];
    const page = rows.slice(0, limit).map(fromRow);
    const last = page[page.length - 1];
    return {
      sessions: page,
      next_cursor: rows.length > limit && last ? encodeCursor(last) : undefined,
    };
  }

  async unsettled(owner?: string): Promise<OwnedSession[]> {
    const settled = SETTLED_STATUSES.map((st) => `'${st}'`).join(',');
    const rows = this.sql(`SELECT * FROM owned_sessions WHERE (? IS NULL OR owner = ?) AND status NOT IN (${settled}) LIMIT 200`).all(owner ?? null, owner ?? null) as Row[];
    return rows.map(fromRow);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function fromRow(row: Row): OwnedSession {
  return {
    ...row,
    favourite: !!row.favourite,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    contexts: JSON.parse(row.contexts ?? '[]') as InputContext[],
    plan: row.plan ? (JSON.parse(row.plan) as Record<string, unknown>) : null,
  };
}
