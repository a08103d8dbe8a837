// The API while a dependency is away. Health as an operator's probes see it, with each dependency really stopped: the API's own Temporal
// dev server, a real PostgreSQL (the session store) and a loopback S3 (the artifact store). Readiness
// (GET /api/ready) turns 503 naming what is down and back to 200 when it returns; liveness
// (GET /api/health) stays 200 throughout, so a replica is taken out of the load balancer, never
// restarted, while a dependency is away.
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import { openServiceStore } from '../src/stores/open';
import { startHarness, testConfig, waitFor, type Harness } from './harness';
import { createDatabase, startPostgres, type PostgresOrSkip } from './harness/postgres';
import { startFakeS3, type FakeS3 } from './harness/s3';
import { startService, type TestService } from './harness/service';
import { startTestServer, type TestServer } from './harness/temporal';

const postgres: PostgresOrSkip = await startPostgres();
if (postgres.skip) console.warn(`health test skipped: ${postgres.skip}`);

describe.skipIf(!postgres.pg)('readiness and liveness of the API with each dependency stopped', () => {
  let harness: Harness;
  let server: TestServer;
  let s3: FakeS3;
  let connection: Connection;
  let client: ResearchClient;
  let api: TestService;
  const pg = postgres.pg as NonNullable<PostgresOrSkip['pg']>;

  beforeAll(async () => {
    harness = await startHarness();
    server = await startTestServer();
    s3 = await startFakeS3();
    const databaseUrl = await createDatabase(pg.url, 'health');
    const { config, env } = testConfig(harness, server.address, {
      DATABASE_URL: databaseUrl,
      ARTIFACTS_URL: 's3://artifacts/health/',
      AWS_ENDPOINT_URL_S3: s3.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    });
    connection = await Connection.connect({ address: server.address });
    client = new ResearchClient(connection, config, true);
    api = await startService({ config, env, client, temporal: client.client, startWorker: async () => undefined, stopWorker: async () => undefined, close: async () => undefined });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await client?.close();
    await connection?.close();
    await s3?.close();
    await server?.stop();
    await harness?.close();
    await pg.stop();
  });

  /** Readiness once its short cache has passed, and liveness beside it. */
  const probe = async () => {
    await new Promise((r) => setTimeout(r, 2_100));
    const started = Date.now();
    const ready = await api.call('GET', '/api/ready');
    const took = Date.now() - started;
    const live = await api.call('GET', '/api/health');
    return { ready, took, live };
  };
  const figures: string[] = [];
  const note = (what: string, p: Awaited<ReturnType<typeof probe>>) => figures.push(`${what}: ${p.ready.status} in ${p.took} ms ${JSON.stringify(p.ready.body.checks)}; /api/health ${p.live.status}`);

  it('is ready with every dependency up, and asks them at most once per cache interval', async () => {
    const p = await probe();
    note('all up', p);
    expect(p.ready.status).toBe(200);
    expect(p.ready.body).toMatchObject({ ready: true, checks: { temporal: 'ok', session_store: 'ok', artifact_store: 'ok' } });
    expect(p.ready.headers.get('cache-control')).toBe('no-store');
    // No token needed (a probe has none), even once tokens exist.
    await api.service.store.createToken('someone');
    expect((await api.call('GET', '/api/ready')).status).toBe(200);
    // Asked a hundred times at once: one round of checks answers them all.
    const s3Before = s3.requests;
    const answers = await Promise.all(Array.from({ length: 100 }, () => api.call('GET', '/api/ready')));
    expect(new Set(answers.map((a) => a.body.checked_at)).size).toBeLessThanOrEqual(2);
    expect(s3.requests - s3Before).toBeLessThanOrEqual(2);
  });

  it('names Temporal while the engine is stopped; liveness stays up', async () => {
    await server.stop();
    try {
      const p = await probe();
      note('Temporal stopped', p);
      expect(p.ready.status).toBe(503);
      expect(p.ready.body.ready).toBe(false);
      expect(p.ready.body.checks.temporal).not.toBe('ok');
      expect(p.ready.body.checks).toMatchObject({ session_store: 'ok', artifact_store: 'ok' });
      // The answer is public: no address of the engine in it.
      expect(JSON.stringify(p.ready.body)).not.toContain(server.address);
      expect(p.took).toBeLessThan(4_000);
      expect(p.live.status).toBe(200);
    } finally {
      await server.restart();
    }
    const back = await waitFor('readiness after Temporal is back', async () => ((await api.call('GET', '/api/ready')).status === 200 ? true : undefined), 60_000, 500);
    expect(back).toBe(true);
  }, 120_000);

  it('names the session store while PostgreSQL is stopped; liveness stays up', async () => {
    pg.pause();
    try {
      const p = await probe();
      note('PostgreSQL (session store) stopped', p);
      expect(p.ready.status).toBe(503);
      expect(p.ready.body.checks.session_store).toMatch(/ECONNREFUSED|terminat|connect/i);
      expect(p.ready.body.checks).toMatchObject({ temporal: 'ok', artifact_store: 'ok' });
      expect(p.ready.body.checks.session_store).not.toMatch(/127\.0\.0\.1/);
      expect(p.live.status).toBe(200);
    } finally {
      pg.resume();
    }
    await waitFor('readiness after PostgreSQL is back', async () => ((await api.call('GET', '/api/ready')).status === 200 ? true : undefined), 60_000, 500);
  }, 120_000);

  it('names the artifact store while the bucket is away; liveness stays up', async () => {
    await s3.pause();
    try {
      const p = await probe();
      note('S3 (artifact store) stopped', p);
      expect(p.ready.status).toBe(503);
      expect(p.ready.body.checks.artifact_store).not.toBe('ok');
      expect(p.ready.body.checks).toMatchObject({ temporal: 'ok', session_store: 'ok' });
      expect(p.live.status).toBe(200);
    } finally {
      await s3.resume();
    }
    await waitFor('readiness after the bucket is back', async () => ((await api.call('GET', '/api/ready')).status === 200 ? true : undefined), 60_000, 500);
    console.log(`readiness figures:\n  ${figures.join('\n  ')}`);
  }, 120_000);

  it("answers another user's session 404 whether the database is up or down, the same 404 as for no session at all", async () => {
    const alice = await api.service.store.createToken('alice');
    const bob = await api.service.store.createToken('bob');
    // Drafts: owned like any session, and no engine call is needed to make them.
    const draft = async (owner: string, id: string) => (await api.service.store.insert({ research_id: id, owner, query: `Outage ownership: ${owner}'s`, status: 'draft', settings: {}, parent_id: null })).research_id;
    const alices = await draft('alice', 'alice-draft01');
    const bobs = await draft('bob', 'bob-draft0001');
    expect((await api.call('GET', `/api/research/${alices}`, { token: alice })).status).toBe(200);
    expect((await api.call('GET', `/api/research/${bobs}`, { token: bob })).status).toBe(200);
    // One of Bob's that this replica never showed him (another replica created it).
    const otherReplica = openServiceStore(api.service.client.config);
    const bobsElsewhere = (await otherReplica.insert({ research_id: 'bob-elsewhere1', owner: 'bob', query: 'made on another replica', status: 'draft', settings: {}, parent_id: null })).research_id;
    await otherReplica.close();
    const unknown = 'no-such-session';
    // A second replica on the same store that has never seen Bob's token (nor any session).
    const fresh = await startService({ config: api.service.client.config, env: {}, client: api.service.client, temporal: api.service.client.client, startWorker: async () => undefined, stopWorker: async () => undefined, close: async () => undefined });
    /** Status, error code, Retry-After and message (with the id taken out) of Bob's call. */
    const asBob = async (path: string, id: string, replica = api) => {
      const res = await replica.call('GET', path.replace(':id', id), { token: bob });
      return { status: res.status, error: res.body.error, retryAfter: res.headers.get('retry-after'), message: String(res.body.message).replace(id, '<id>') };
    };
    for (const path of ['/api/research/:id', '/api/research/:id/events']) {
      const up = await asBob(path, alices);
      expect(up).toMatchObject({ status: 404, error: 'NOT_FOUND' });
      expect(await asBob(path, unknown)).toEqual(up);
    }
    pg.pause();
    try {
      for (const path of ['/api/research/:id', '/api/research/:id/events', '/api/research/:id/report']) {
        // Alice's (remembered by this replica as hers), none, and Bob's own that this replica never read: one answer.
        const down = await asBob(path, alices);
        expect(down, path).toMatchObject({ status: 404, error: 'NOT_FOUND', retryAfter: '5' });
        expect(down.message).toMatch(/session store cannot be reached/);
        expect(await asBob(path, unknown), path).toEqual(down);
        expect(await asBob(path, bobsElsewhere), path).toEqual(down);
        // The replica that never checked Bob's token answers the same, for any id.
        expect(await asBob(path, alices, fresh), path).toEqual(down);
        expect(await asBob(path, unknown, fresh), path).toEqual(down);
      }
      // A call about no one session cannot be answered without the token: 503 for whoever asks.
      expect((await fresh.call('GET', '/api/research', { token: bob })).status).toBe(503);
      // What each was shown lately is still theirs.
      expect((await api.call('GET', `/api/research/${bobs}`, { token: bob })).status).toBe(200);
      expect((await api.call('GET', `/api/research/${alices}`, { token: alice })).status).toBe(200);
    } finally {
      pg.resume();
      await fresh.close();
    }
    await waitFor('the database back', async () => ((await api.call('GET', `/api/research/${bobsElsewhere}`, { token: bob })).status === 200 ? true : undefined), 60_000, 500);
    expect((await asBob('/api/research/:id', alices)).status).toBe(404);
  }, 120_000);
});
