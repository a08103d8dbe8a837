// The shared database's schema, in versions. Append, never edit: a database that already ran a
// version does not run it again. New stores (schedules, …) add their tables as the next version.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Ordered text keys use the "C" collation so listing order and cursors match the SQLite stores.
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'sessions, events, stream, service, fetch cache, artifacts',
    sql: `
      CREATE TABLE sessions (
        collection TEXT NOT NULL,
        research_id TEXT COLLATE "C" NOT NULL,
        status TEXT NOT NULL,
        initial_query TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        updated_at TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        PRIMARY KEY (collection, research_id)
      );
      CREATE INDEX sessions_by_created ON sessions (collection, created_at DESC, research_id DESC);
      CREATE TABLE session_events (
        collection TEXT NOT NULL,
        research_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (collection, research_id, seq)
      );
      CREATE TABLE session_stream (
        collection TEXT NOT NULL,
        research_id TEXT NOT NULL,
        call_key TEXT NOT NULL,
        chunk INTEGER NOT NULL,
        seq DOUBLE PRECISION NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (collection, research_id, call_key, chunk)
      );
      CREATE INDEX session_stream_by_seq ON session_stream (collection, research_id, seq);
      CREATE TABLE api_tokens (
        token_hash TEXT PRIMARY KEY, "user" TEXT NOT NULL, label TEXT, created_at TEXT NOT NULL);
      CREATE TABLE owned_sessions (
        research_id TEXT COLLATE "C" PRIMARY KEY, owner TEXT NOT NULL, query TEXT NOT NULL, status TEXT NOT NULL,
        favourite BOOLEAN NOT NULL DEFAULT false, settings TEXT NOT NULL DEFAULT '{}', share_token TEXT UNIQUE,
        parent_id TEXT, created_at TEXT COLLATE "C" NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX owned_by_created ON owned_sessions (owner, created_at DESC, research_id DESC);
      CREATE TABLE fetches (
        url TEXT PRIMARY KEY, file_id TEXT NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL,
        final_url TEXT NOT NULL, status INTEGER NOT NULL, size INTEGER NOT NULL, fetched_at TEXT NOT NULL);
      CREATE INDEX fetches_by_file ON fetches (file_id);
      CREATE TABLE artifacts (
        file_id TEXT PRIMARY KEY, meta TEXT NOT NULL, size INTEGER NOT NULL, body BYTEA NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'input contexts and edited plans of drafts',
    sql: `
      ALTER TABLE owned_sessions ADD COLUMN contexts TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE owned_sessions ADD COLUMN plan TEXT;
    `,
  },
  {
    version: 3,
    name: 'which session uses which artifact',
    sql: `
      CREATE TABLE artifact_refs (research_id TEXT NOT NULL, file_id TEXT NOT NULL, PRIMARY KEY (research_id, file_id));
      CREATE INDEX artifact_refs_by_file ON artifact_refs (file_id);
    `,
  },
  {
    version: 4,
    name: 'limits shared by serve replicas: rate-limit windows and event stream leases',
    sql: `
      CREATE TABLE rate_windows (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count INTEGER NOT NULL);
      CREATE TABLE stream_leases (stream_id TEXT PRIMARY KEY, "user" TEXT NOT NULL, replica TEXT NOT NULL, expires_at BIGINT NOT NULL);
      CREATE INDEX stream_leases_by_user ON stream_leases ("user", expires_at);
      CREATE INDEX stream_leases_by_replica ON stream_leases (replica);
    `,
  },
  {
    version: 5,
    name: 'ids of deleted sessions, never adopted again',
    sql: `
      CREATE TABLE deleted_sessions (research_id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);
    `,
  },
];
