// One way to open the embedded stores' SQLite files: the folder made, write-ahead log, and a wait
// for a lock held by another process (a worker and the server share the files).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export function openSqliteFile(file: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}
