// One way to open the embedded stores' SQLite files: the folder made, write-ahead logging (readers
// never wait for the writer), and a writer that waits up to 5 s for another process's lock.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export function openSqlite(file: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * Prepared statements kept by their SQL: preparing one is most of a short query's cost, and a
 * server's every request runs the same few (token, rate window, stream lease, ownership). Not for
 * statements read with iterate(): one of those is busy until its rows are read.
 */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const kept = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = kept.get(sql);
    if (!statement) kept.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}
