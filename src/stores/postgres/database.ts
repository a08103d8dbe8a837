// One pg pool per DATABASE_URL in a process, shared by every store that uses it, and the schema
// migrations: versioned, applied once at start-up under an advisory lock so that several workers
// starting together never race each other.
import type pg from 'pg';
import { MIGRATIONS } from './migrations';

export interface PgDatabase {
  /** Runs once the schema is current (the first query migrates it). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs `work` in one transaction on one connection. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Gives this user's share back; the pool ends with the last one. */
  release(): Promise<void>;
}

interface Shared {
  pool: pg.Pool;
  /** The migration run, started by the first query; forgotten when it fails, so a later query retries. */
  ready?: Promise<void>;
  users: number;
}

const pools = new Map<string, Shared>();

/** An arbitrary constant: the key of the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 7_231_406_118;

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

export function openDatabase(url: string): PgDatabase {
  let shared = pools.get(url);
  if (!shared) {
    // A database that does not answer a connect fails the call in 10 s (then it is waited for or
    // retried), rather than holding an activity until its timeout.
    // pg loads with the first shared database (the embedded SQLite stores never need it).
    const { Pool } = require('pg') as typeof import('pg');
    const pool = new Pool({ connectionString: url, max: 8, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000, keepAlive: true });
    // An idle connection the server drops must not take the process down; the next query reconnects.
    pool.on('error', () => undefined);
    shared = { pool, users: 0 };
    pools.set(url, shared);
  }
  const s = shared;
  s.users++;
  let released = false;
  const ready = () =>
    (s.ready ??= migrate(s.pool).catch((err: unknown) => {
      s.ready = undefined;
      throw err;
    }));
  return {
    async query(sql, params) {
      await ready();
      return s.pool.query(sql, params);
    },
    async transaction(work) {
      await ready();
      const client = await checkOut(s.pool);
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async release() {
      if (released) return;
      released = true;
      if (--s.users > 0) return;
      pools.delete(url);
      await s.pool.end();
    },
  };
}

/**
 * A client out of the pool, with its own error listener while it is out: a database that goes away
 * (stopped, restarted) makes the connection emit an error, which would otherwise end the process.
 * A client whose ROLLBACK failed is given back broken, so the pool drops it.
 */
async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  const onError = () => undefined;
  client.on('error', onError);
  const release = client.release.bind(client);
  client.release = (err?: Error | boolean) => {
    client.off('error', onError);
    release(err);
  };
  return client;
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await checkOut(pool);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`database migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}
