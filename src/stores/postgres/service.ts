// API tokens (hashed), ownership, drafts, favourites and share tokens in shared PostgreSQL: a token
// created on one machine is good on every API process of the fleet.
import { SETTLED_STATUSES, USER_NAME, USER_NAME_RULE } from '../../domain/names';
import type { InputContext } from '../../domain/panel';
import { decodeCursor, encodeCursor, hashToken, newApiToken, type ListFilter, type NewOwnedSession, type OwnedSession, type ServiceStore, type SessionChanges } from '../service';
import type { PgDatabase } from './database';

interface Row extends Omit<OwnedSession, 'settings' | 'contexts' | 'plan'> {
  settings: string;
  contexts: string | null;
  plan: string | null;
}

const COLUMNS = new Set(['query', 'status', 'favourite', 'settings', 'share_token', 'contexts', 'plan']);
const JSON_COLUMNS = new Set(['settings', 'contexts', 'plan']);

export class PgServiceStore implements ServiceStore {
  constructor(private readonly db: PgDatabase) {}

  async createToken(user: string, label?: string): Promise<string> {
    if (!USER_NAME.test(user)) throw new Error(USER_NAME_RULE);
    const token = newApiToken();
    await this.db.query('INSERT INTO api_tokens (token_hash, "user", label, created_at) VALUES ($1, $2, $3, $4)', [hashToken(token), user, label ?? null, new Date().toISOString()]);
    return token;
  }

  async registerToken(user: string, token: string, label?: string): Promise<boolean> {
    if (!USER_NAME.test(user)) throw new Error(USER_NAME_RULE);
    const result = await this.db.query('INSERT INTO api_tokens (token_hash, "user", label, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (token_hash) DO NOTHING', [hashToken(token), user, label ?? null, new Date().toISOString()]);
    return (result.rowCount ?? 0) > 0;
  }

  async userForToken(token: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ user: string }>('SELECT "user" FROM api_tokens WHERE token_hash = $1', [hashToken(token)]);
    return rows[0]?.user;
  }

  async tokenCount(): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM api_tokens');
    return Number(rows[0].n);
  }

  async revokeTokens(user: string): Promise<number> {
    return (await this.db.query('DELETE FROM api_tokens WHERE "user" = $1', [user])).rowCount ?? 0;
  }

  async insert(s: NewOwnedSession): Promise<OwnedSession> {
    const now = new Date().toISOString();
    const { rows } = await this.db.query<Row>(
      `INSERT INTO owned_sessions (research_id, owner, query, status, favourite, settings, contexts, share_token, parent_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $9) RETURNING *`,
      [s.research_id, s.owner, s.query, s.status, !!s.favourite, JSON.stringify(s.settings), JSON.stringify(s.contexts ?? []), s.parent_id, now],
    );
    return fromRow(rows[0]);
  }

  async exists(researchId: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM owned_sessions WHERE research_id = $1', [researchId])).rows.length > 0;
  }

  async get(researchId: string): Promise<OwnedSession | undefined> {
    const { rows } = await this.db.query<Row>('SELECT * FROM owned_sessions WHERE research_id = $1', [researchId]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async owned(researchId: string, owner: string): Promise<OwnedSession | undefined> {
    const s = await this.get(researchId);
    return s && s.owner === owner ? s : undefined;
  }

  async byShareToken(token: string): Promise<OwnedSession | undefined> {
    const { rows } = await this.db.query<Row>('SELECT * FROM owned_sessions WHERE share_token = $1', [token]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async update(researchId: string, changes: SessionChanges): Promise<OwnedSession> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || !COLUMNS.has(key)) continue;
      values.push(JSON_COLUMNS.has(key) && value !== null ? JSON.stringify(value) : value);
      sets.push(`${key} = $${values.length}`);
    }
    values.push(new Date().toISOString());
    sets.push(`updated_at = $${values.length}`);
    values.push(researchId);
    const { rows } = await this.db.query<Row>(`UPDATE owned_sessions SET ${sets.join(', ')} WHERE research_id = $${values.length} RETURNING *`, values);
    return fromRow(rows[0]);
  }

  async remove(researchId: string): Promise<void> {
    await this.db.query('DELETE FROM owned_sessions WHERE research_id = $1', [researchId]);
  }

  async markDeleted(researchId: string): Promise<void> {
    await this.db.query(
      `WITH marked AS (INSERT INTO deleted_sessions (research_id, deleted_at) VALUES ($1, $2) ON CONFLICT (research_id) DO NOTHING)
       DELETE FROM owned_sessions WHERE research_id = $1`,
      [researchId, new Date().toISOString()],
    );
  }

  async wasDeleted(researchId: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM deleted_sessions WHERE research_id = $1', [researchId])).rows.length > 0;
  }

  async list(f: ListFilter): Promise<{ sessions: OwnedSession[]; next_cursor?: string }> {
    const limit = Math.max(1, Math.min(f.limit ?? 20, 100));
    const params: unknown[] = f.owner === undefined ? [] : [f.owner];
    let where = f.owner === undefined ? 'TRUE' : 'owner = $1';
    if (f.status) {
      params.push(f.status);
      where += ` AND status = $${params.length}`;
    }
    if (f.favourite !== undefined) {
      params.push(f.favourite);
      where += ` AND favourite = $${params.length}`;
    }
    if (f.q) {
      params.push(`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where += ` AND query ILIKE $${params.length}`;
    }
    if (f.cursor) {
      const { created, id } = decodeCursor(f.cursor);
      params.push(created, id);
      where += ` AND (created_at, research_id) < ($${params.length - 1}, $${params.length})`;
    }
    params.push(limit + 1);
    const { rows } = await this.db.query<Row>(`SELECT * FROM owned_sessions WHERE ${where} ORDER BY created_at DESC, research_id DESC LIMIT $${params.length}`, params);
    const page = rows.slice(0, limit).map(fromRow);
    const last = page[page.length - 1];
    return { sessions: page, next_cursor: rows.length > limit && last ? encodeCursor(last) : undefined };
  }

  async unsettled(owner?: string): Promise<OwnedSession[]> {
    const { rows } = await this.db.query<Row>('SELECT * FROM owned_sessions WHERE ($1::text IS NULL OR owner = $1) AND NOT (status = ANY($2)) LIMIT 200', [owner ?? null, [...SETTLED_STATUSES]]);
    return rows.map(fromRow);
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}

function fromRow(row: Row): OwnedSession {
  return {
    ...row,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    contexts: JSON.parse(row.contexts ?? '[]') as InputContext[],
    plan: row.plan ? (JSON.parse(row.plan) as Record<string, unknown>) : null,
  };
}
