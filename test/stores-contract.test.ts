// One contract for every store, run against both back-ends: the embedded SQLite files and a real
// PostgreSQL server started for this file (skipped, with the reason, where none can be found).
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { InvalidCursorError } from '../src/stores/service';
import { openArtifactStore, openFetchCache, openServiceStore, openSessionStore } from '../src/stores/open';
import { openDatabase } from '../src/stores/postgres/database';
import { MIGRATIONS } from '../src/stores/postgres/migrations';
import type { ResearchEvent, ResearchSnapshot } from '../src/domain/types';
import { createDatabase, startPostgres } from './harness/postgres';
import { startFakeS3 } from './harness/s3';

const postgres = await startPostgres();
if (postgres.skip) console.warn(`PostgreSQL store tests skipped: ${postgres.skip}`);
const s3 = await startFakeS3();
afterAll(async () => {
  await postgres.pg?.stop();
  await s3.close();
});

let databases = 0;
interface Backend {
  /** A fresh, empty place for the stores: a new data dir, and a new database on PostgreSQL. */
  fresh(): Promise<{ config: StoreConfig }>;
}

const sqlite: Backend = {
  fresh: async () => ({ config: config() }),
};
const postgresql: Backend = {
  fresh: async () => ({ config: config({ DATABASE_URL: await createDatabase(postgres.pg?.url as string, `contract_${++databases}`) }) }),
};

/** A fresh data dir, and the stores the environment names (DATABASE_URL, ARTIFACTS_URL), read as a process reads them. */
function config(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dr-contract-'));
  return { data_dir: dataDir, research: { collections: { research_collection: 'research-sessions' } }, environment: loadConfig({ ...env, DEEP_RESEARCH_DATA_DIR: dataDir }).environment };
}
type StoreConfig = ReturnType<typeof config>;

const snap = (id: string, created: string, status = 'completed', extra: Record<string, unknown> = {}): ResearchSnapshot =>
  ({ research_id: id, status, initial_query: `q ${id}`, created_at: created, updated_at: created, report_markdown: '', ...extra }) as unknown as ResearchSnapshot;
const ev = (seq: number, type = 'Status'): ResearchEvent => ({ seq, time: 't', type, data: {} }) as ResearchEvent;
const id64 = (c: string) => c.repeat(64);

for (const [name, backend] of [
  ['SQLite', sqlite],
  ['PostgreSQL', postgresql],
] as const) {
  const skip = name === 'PostgreSQL' && !postgres.pg;
  describe.skipIf(skip)(`${name} stores`, () => {
    it('sessions: replaced by id, events kept by seq, listed newest first with a cursor and a status filter', async () => {
      const { config } = await backend.fresh();
      const store = openSessionStore(config);
      try {
        for (let i = 1; i <= 5; i++) await store.save(snap(`r${i}`, `2026-01-0${i}T00:00:00Z`), []);
        await store.save(snap('r3', '2026-01-03T00:00:00Z', 'running'), [ev(1)]);
        await store.save(snap('r3', '2026-01-03T00:00:00Z', 'failed'), [ev(1), ev(2, 'StopEvent')]);
        expect((await store.get('r3'))?.status).toBe('failed');
        expect(await store.get('nope')).toBeUndefined();
        expect((await store.events('r3')).map((e) => e.seq)).toEqual([1, 2]);
        expect((await store.events('r3', 1)).map((e) => e.type)).toEqual(['StopEvent']);
        const page1 = await store.list({ limit: 2 });
        expect(page1.sessions.map((s) => s.research_id)).toEqual(['r5', 'r4']);
        const page2 = await store.list({ limit: 2, cursor: page1.next_cursor });
        expect(page2.sessions.map((s) => s.research_id)).toEqual(['r3', 'r2']);
        const page3 = await store.list({ limit: 2, cursor: page2.next_cursor });
        expect(page3.sessions.map((s) => s.research_id)).toEqual(['r1']);
        expect(page3.next_cursor).toBeUndefined();
        expect((await store.list({ status: 'failed' })).sessions.map((s) => s.research_id)).toEqual(['r3']);
        expect(page1.sessions[0]).toEqual({ research_id: 'r5', status: 'completed', initial_query: 'q r5', created_at: '2026-01-05T00:00:00Z', updated_at: '2026-01-05T00:00:00Z' });
      } finally {
        await store.close();
      }
    });

    it('sessions: the previous completed run of a schedule, for "what changed"', async () => {
      const { config } = await backend.fresh();
      const store = openSessionStore(config);
      try {
        const run = (id: string, day: number, schedule: string, status = 'completed') => snap(id, `2026-04-0${day}T00:00:00Z`, status, { settings: { schedule_id: schedule } });
        await store.save(run('a1', 1, 'weekly'), []);
        await store.save(run('a2', 2, 'weekly'), []);
        await store.save(run('a3', 3, 'weekly', 'failed'), []);
        await store.save(run('b1', 4, 'daily'), []);
        await store.save(run('a4', 5, 'weekly', 'running'), []);
        expect((await store.previousScheduledRun('weekly', 'a4'))?.research_id).toBe('a2');
        expect((await store.previousScheduledRun('weekly', 'a2'))?.research_id).toBe('a1');
        expect(await store.previousScheduledRun('monthly', 'a4')).toBeUndefined();
      } finally {
        await store.close();
      }
    });

    it('sessions: the stream sits beside the events, a retry rewrites its chunk, delete removes everything', async () => {
      const { config } = await backend.fresh();
      const store = openSessionStore(config);
      const other = openSessionStore(config);
      try {
        await store.save(snap('s1', '2026-02-01T00:00:00Z', 'running', { sources: [{ text_file_id: id64('a') }] }), [ev(1), ev(2)]);
        await store.save(snap('s2', '2026-02-02T00:00:00Z', 'running', { sources: [{ text_file_id: id64('b') }] }), []);
        await store.appendStream('s1', 'run/1#1', 1, { ...ev(1.001, 'AgentStream'), data: { delta: 'first' } });
        await store.appendStream('s1', 'run/1#1', 1, { ...ev(1.001, 'AgentStream'), data: { delta: 'again' } });
        await store.appendStream('s1', 'run/1#1', 2, ev(1.002, 'AgentStream'));
        // A second store on the same place (another process) reads what the first wrote.
        expect(await other.streamCount('s1')).toBe(2);
        expect((await other.streamEvents('s1')).map((e) => e.data.delta ?? null)).toEqual(['again', null]);
        expect((await other.streamEvents('s1', 1.001)).map((e) => e.seq)).toEqual([1.002]);
        expect([...(await other.artifactIdsExcept('s1'))]).toEqual([id64('b')]);
        await other.delete('s1');
        expect(await store.get('s1')).toBeUndefined();
        expect(await store.events('s1')).toEqual([]);
        expect(await store.streamCount('s1')).toBe(0);
        expect((await store.list()).sessions.map((s) => s.research_id)).toEqual(['s2']);
      } finally {
        await other.close();
        await store.close();
      }
    });

    it('fetch cache: fresh within the TTL, stale after, forgotten with its artifact', async () => {
      const { config } = await backend.fresh();
      const cache = openFetchCache(config);
      try {
        const at = Date.parse('2026-03-01T00:00:00Z');
        const entry = { url: 'https://a.example/p', file_id: id64('c'), kind: 'html' as const, content_type: 'text/html', final_url: 'https://a.example/p', status: 200, size: 10, fetched_at: new Date(at).toISOString() };
        await cache.put(entry);
        await cache.put({ ...entry, status: 203 });
        expect(await cache.fresh(entry.url, 60, at + 30_000)).toEqual({ ...entry, status: 203 });
        expect(await cache.fresh(entry.url, 60, at + 61_000)).toBeUndefined();
        expect(await cache.fresh(entry.url, 0, at)).toBeUndefined();
        await cache.forget([id64('c')]);
        expect(await cache.fresh(entry.url, 60, at)).toBeUndefined();
      } finally {
        await cache.close();
      }
    });

    it('artifact references: a shared artifact is released only when its last session lets go, retries record nothing twice', async () => {
      const { config } = await backend.fresh();
      const cache = openFetchCache(config);
      try {
        const at = new Date().toISOString();
        await cache.put({ url: 'https://a.example/shared', file_id: id64('a'), kind: 'html', content_type: 'text/html', final_url: 'https://a.example/shared', status: 200, size: 1, fetched_at: at });
        await cache.adopt('A', [id64('a'), id64('b')]);
        await cache.adopt('A', [id64('a')]);
        await cache.adopt('B', [id64('a')]);
        expect(await cache.users(id64('a'))).toEqual(['A', 'B']);
        // A's own artifact and one only named in its snapshot go; the one B uses stays, cached too.
        expect((await cache.release('A', [id64('c')])).sort()).toEqual([id64('b'), id64('c')]);
        expect(await cache.users(id64('a'))).toEqual(['B']);
        expect(await cache.fresh('https://a.example/shared', 60)).toBeDefined();
        expect(await cache.release('A', [])).toEqual([]);
        expect(await cache.release('B', [])).toEqual([id64('a')]);
        expect(await cache.fresh('https://a.example/shared', 60)).toBeUndefined();
      } finally {
        await cache.close();
      }
    });

    it('service: hashed tokens, ownership, drafts, favourites, share tokens, filtered pages', async () => {
      const { config } = await backend.fresh();
      const store = openServiceStore(config);
      try {
        expect(await store.tokenCount()).toBe(0);
        const token = await store.createToken('alice', 'laptop');
        await store.createToken('alice');
        await expect(store.createToken('no spaces')).rejects.toThrow(/user name/);
        expect(await store.userForToken(token)).toBe('alice');
        expect(await store.userForToken('drt_nope')).toBeUndefined();
        expect(await store.tokenCount()).toBe(2);
        expect(await store.revokeTokens('alice')).toBe(2);
        expect(await store.userForToken(token)).toBeUndefined();

        const queries = ['Heat pumps 100%', 'solar_panels', 'HEAT storage', 'wind'];
        for (const [i, query] of queries.entries()) {
          await store.insert({ research_id: `id${i}`, owner: 'alice', query, status: i === 3 ? 'running' : 'completed', settings: { i }, parent_id: null });
          await new Promise((r) => setTimeout(r, 2));
        }
        await store.insert({ research_id: 'bobs', owner: 'bob', query: 'heat', status: 'draft', settings: {}, parent_id: null });
        expect(await store.exists('id0')).toBe(true);
        expect(await store.exists('zz')).toBe(false);
        expect(await store.owned('bobs', 'alice')).toBeUndefined();
        expect((await store.get('id0'))?.settings).toEqual({ i: 0 });
        const fav = await store.update('id1', { favourite: true, settings: { x: 1 } });
        expect(fav).toMatchObject({ favourite: true, settings: { x: 1 }, query: 'solar_panels' });
        const shared = await store.update('id2', { share_token: 'tok_abcdefghijklmnopqrstuvwx' });
        expect((await store.byShareToken('tok_abcdefghijklmnopqrstuvwx'))?.research_id).toBe('id2');
        expect(shared.share_token).toBe('tok_abcdefghijklmnopqrstuvwx');

        const ids = async (f: Parameters<typeof store.list>[0]) => (await store.list(f)).sessions.map((s) => s.research_id);
        expect(await ids({ owner: 'alice' })).toEqual(['id3', 'id2', 'id1', 'id0']);
        expect(await ids({ owner: 'alice', q: 'heat' })).toEqual(['id2', 'id0']);
        expect(await ids({ owner: 'alice', q: '100%' })).toEqual(['id0']);
        expect(await ids({ owner: 'alice', q: '_' })).toEqual(['id1']);
        expect(await ids({ owner: 'alice', favourite: true })).toEqual(['id1']);
        expect(await ids({ owner: 'alice', status: 'running' })).toEqual(['id3']);
        const first = await store.list({ owner: 'alice', limit: 3 });
        expect(await ids({ owner: 'alice', limit: 3, cursor: first.next_cursor })).toEqual(['id0']);
        await expect(store.list({ owner: 'alice', cursor: 'garbage' })).rejects.toThrow(InvalidCursorError);
        expect((await store.unsettled('alice')).map((s) => s.research_id)).toEqual(['id3']);
        expect(await store.unsettled('bob')).toEqual([]);
        // An operator's view: every owner's sessions, in the same order and pages.
        expect(await ids({})).toEqual(['bobs', 'id3', 'id2', 'id1', 'id0']);
        expect(await ids({ q: 'heat', limit: 2 })).toEqual(['bobs', 'id2']);
        expect((await store.unsettled()).map((s) => s.research_id)).toEqual(['id3']);
        const draft = await store.insert({ research_id: 'd1', owner: 'carol', query: 'q', status: 'draft', settings: {}, contexts: [{ content: 'notes', label: 'mine' }], parent_id: null });
        expect(draft).toMatchObject({ contexts: [{ content: 'notes', label: 'mine' }], plan: null });
        expect((await store.update('d1', { plan: { outline: ['a'] } })).plan).toEqual({ outline: ['a'] });
        expect((await store.update('d1', { plan: null, contexts: [] }))).toMatchObject({ plan: null, contexts: [] });
        await store.remove('id3');
        expect(await store.get('id3')).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
}

let buckets = 0;
const artifactBackends = [
  ['a data-dir folder', false, sqlite.fresh],
  ['PostgreSQL', !postgres.pg, postgresql.fresh],
  [
    'an S3-compatible bucket',
    false,
    async () => ({
      config: config({ ARTIFACTS_URL: `s3://artifacts/run-${++buckets}/`, AWS_ENDPOINT_URL_S3: s3.url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test-secret' }),
    }),
  ],
] as const;

for (const [name, skip, fresh] of artifactBackends) {
  describe.skipIf(skip)(`artifacts in ${name}`, () => {
  it('artifacts: content addressed, stored once, readable back, refused ids, deleted', async () => {
    const { config } = await fresh();
    const store = openArtifactStore(config);
    try {
      const a = await store.put('hello', { name: 'a', kind: 'text', source_url: 'https://a.example/' });
      const b = await store.put(Buffer.from('hello'), { name: 'b', kind: 'html' });
      expect(b).toEqual(a);
      expect(a.file_id).toMatch(/^[a-f0-9]{64}$/);
      expect(a.size).toBe(5);
      expect(await store.getText(a.file_id)).toBe('hello');
      const bytes = Buffer.from([0, 255, 1, 254, 0]);
      const bin = await store.put(bytes, { name: 'bin', kind: 'pdf', content_type: 'application/pdf' });
      expect(Buffer.compare(await store.get(bin.file_id), bytes)).toBe(0);
      expect((await store.describe(bin.file_id))?.content_type).toBe('application/pdf');
      await expect(store.get(id64('0'))).rejects.toThrow('not found');
      await expect(store.get('../../etc/passwd')).rejects.toThrow('not an artifact id');
      await expect(store.describe('../x')).rejects.toThrow('not an artifact id');
      await store.delete(a.file_id);
      expect(await store.describe(a.file_id)).toBeUndefined();
      await expect(store.get(a.file_id)).rejects.toThrow('not found');
    } finally {
      await store.close?.();
    }
  });

  });
}

describe('artifacts in an S3-compatible bucket', () => {
  it('are objects under the prefix, bytes beside their description, nothing in the data dir', async () => {
    const dir = config({ ARTIFACTS_URL: 's3://artifacts/fleet/one', AWS_ENDPOINT_URL_S3: s3.url, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    const store = openArtifactStore(dir);
    try {
      const a = await store.put('<p>page</p>', { name: 'https://a.example/', kind: 'html', content_type: 'text/html' });
      const key = `artifacts/fleet/one/${a.file_id.slice(0, 2)}/${a.file_id}`;
      expect(s3.objects.get(key)?.body.toString()).toBe('<p>page</p>');
      expect(s3.objects.get(key)?.contentType).toBe('text/html');
      expect(JSON.parse(s3.objects.get(`${key}.json`)?.body.toString() ?? '{}')).toMatchObject({ file_id: a.file_id, kind: 'html' });
      expect(existsSync(path.join(dir.data_dir, 'artifacts'))).toBe(false);
    } finally {
      await store.close?.();
    }
  });

  it('refuses an ARTIFACTS_URL that is not s3://bucket/prefix', () => {
    expect(() => openArtifactStore(config({ ARTIFACTS_URL: 'https://bucket.example/x' }))).toThrow(/ARTIFACTS_URL must look like s3:/);
  });
});

describe.skipIf(!postgres.pg)('PostgreSQL migrations', () => {
  it('run once, under a lock, however many processes start at the same time', async () => {
    const url = await createDatabase(postgres.pg?.url as string, 'migrations_race');
    // Distinct URLs give distinct pools, as distinct processes would have.
    const starters = Array.from({ length: 6 }, (_, i) => openDatabase(`${url}?application_name=worker${i}`));
    try {
      await Promise.all(starters.map((db) => db.query('SELECT 1 FROM sessions LIMIT 1')));
    } finally {
      await Promise.all(starters.map((db) => db.release()));
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await client.end();
    }
  });

  it('refuses a DATABASE_URL that is not PostgreSQL, saying what to set', () => {
    expect(() => openSessionStore(config({ DATABASE_URL: 'mysql://x' }))).toThrow(/DATABASE_URL must be a PostgreSQL URL/);
  });
});
