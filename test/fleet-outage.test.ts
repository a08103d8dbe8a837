// A fleet that rides out its database: two worker processes share one PostgreSQL, which is stopped
// mid-run for 30 s and then for 3 minutes. Every session completes with every source a clean run
// fetches; the model calls counted at the fake model equal a clean run's, plus at most those in
// flight during the outage (none, measured). While the database is away the session
// says so (status from the CLI and the workers' own status lines), /metrics counts the failures, and
// the workers log the wait and the return.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import { storeWaits } from '../src/client/store-waits';
import { isTerminal } from '../src/domain/names';
import { startChildWorker, type ChildWorker } from './harness/child-worker';
import { startHarness, testConfig, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';
import { createDatabase, freePort, startPostgres, type PostgresOrSkip } from './harness/postgres';
import { runCli } from './harness/cli';
import type { RecordedRequest } from './harness/recorder';

const postgres: PostgresOrSkip = await startPostgres();
if (postgres.skip) console.warn(`fleet outage test skipped: ${postgres.skip}`);

const dataDir = (name: string) => mkdtempSync(path.join(os.tmpdir(), `dr-outage-${name}-`));
const SETTINGS = { max_sources: 6, batch_size: 3, fetch_concurrency: 3, max_iterations: 2 };
const SESSIONS = 2;

interface Batch {
  ids: string[];
  calls: RecordedRequest[];
  /** Model calls whose prompt had been asked before in this batch (a clean run has some by design). */
  repeated: number;
  fetched: number[];
}

describe.skipIf(!postgres.pg)('a fleet riding out its database (PostgreSQL stopped mid-run)', () => {
  let harness: Harness;
  const workers: ChildWorker[] = [];
  let connection: Connection | undefined;
  let client: ResearchClient;
  let api: TestService;
  let env: Record<string, string>;
  let metricsPort = 0;
  let healthPort = 0;
  let clean: Batch;
  let batchNo = 0;
  const figures: string[] = [];

  beforeAll(async () => {
    // Model calls take a while, so both sessions are mid-run together (research is otherwise over in seconds).
    harness = await startHarness({ model: { gapIterations: 1, delayMs: 300 }, web: { delayMs: 300 } });
    const databaseUrl = await createDatabase(postgres.pg?.url as string, 'fleet_outage');
    const test = testConfig(harness, inject('temporalAddress'), { DATABASE_URL: databaseUrl });
    env = test.env;
    const bundle = path.join(dataDir('bundle'), 'workflows.js');
    writeFileSync(bundle, (await workflowBundle()).code);
    metricsPort = await freePort();
    healthPort = await freePort();
    const workerEnv = (name: string, extra: Record<string, string> = {}) => ({ ...env, DEEP_RESEARCH_DATA_DIR: dataDir(name), DEEP_RESEARCH_WORKFLOW_BUNDLE: bundle, ...extra });
    workers.push(...(await Promise.all([startChildWorker(workerEnv('a', { DEEP_RESEARCH_METRICS_PORT: String(metricsPort), DEEP_RESEARCH_HEALTH_PORT: String(healthPort) })), startChildWorker(workerEnv('b'))])));
    test.config.data_dir = dataDir('client');
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
    client = new ResearchClient(connection, test.config, true);
    api = await startService({ client } as TestEnvironment);
  });
  afterAll(async () => {
    if (figures.length) console.log(`fleet outage figures:\n${figures.join('\n')}`);
    for (const w of workers) await w.kill();
    await api?.close();
    await client?.close();
    await connection?.close();
    await harness?.close();
    await postgres.pg?.stop();
  });

  /** SESSIONS sessions at once; `during` runs once all are mid-run. */
  async function runBatch(during?: (ids: string[]) => Promise<void>): Promise<Batch> {
    const since = harness.recorder.requests.length;
    const n = ++batchNo;
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      // Through the API, as a team's users would; the API then answers their status during the outage.
      const created = await api.call('POST', '/api/research', { body: { query: `Outage batch ${n}, session ${i + 1}: offshore wind`, auto_approve: true, settings: SETTINGS } });
      expect(created.status).toBe(201);
      ids.push(created.body.research_id as string);
    }
    if (during) {
      let seen = '';
      await waitFor('every session mid-run', async () => {
        // Past their first analysis and not ended (a session already verifying still has store work).
        const states = await Promise.all(ids.map((id) => client.state(id)));
        seen = states.map((s) => `${s.status}/${s.phase}/${s.findings.length} findings`).join(', ');
        return states.every((s) => !isTerminal(s.status) && s.findings.length > 0);
      }, 180_000, 250).catch((err: Error) => {
        throw new Error(`${err.message} (last seen: ${seen})`);
      });
      await during(ids);
    }
    for (const id of ids) await client.waitForResult(id);
    const states = await Promise.all(ids.map((id) => client.state(id)));
    for (const s of states) expect(s.status, `${s.research_id}: ${s.reason ?? ''}`).toBe('completed');
    const calls = harness.recorder.requests.slice(since).filter((r) => r.server === 'model');
    const keys = new Set<string>();
    let repeated = 0;
    for (const c of calls) {
      if (keys.has(c.key)) repeated++;
      keys.add(c.key);
    }
    return { ids, calls, repeated, fetched: states.map((s) => s.sources.filter((x) => x.status === 'fetched').length) };
  }

  /** Stops the database for `ms` mid-run; returns the model calls in flight while it was away. */
  async function outage(ids: string[], ms: number): Promise<{ inFlight: number; waits: string[]; cliStatus: string; apiStatus: { status: number; waiting: string[] }; health: [number, number] }> {
    const pg = postgres.pg as NonNullable<PostgresOrSkip['pg']>;
    const stoppedAt = Date.now();
    pg.pause();
    let waits: string[] = [];
    let cliStatus = '';
    let apiStatus: { status: number; waiting: string[] } = { status: 0, waiting: [] };
    let health: [number, number] = [0, 0];
    try {
      // The session says what it waits for; the first store activity retrying shows within seconds.
      waits = await waitFor('a session saying it waits for its store', async () => {
        const lines = (await Promise.all(ids.map((id) => storeWaits(client.client, id)))).flat().map((w) => w.line);
        return lines.length ? lines : undefined;
      }, 60_000, 500);
      // The CLI and the API say it too, for any session of the batch: one may be in a model call
      // (which needs no store) at the moment it is asked.
      const cliDir = dataDir('cli');
      cliStatus = await waitFor('the CLI saying a session waits for its store', async () => {
        let said = '';
        for (const id of ids) {
          const status = await runCli(['status', id], { ...env, DEEP_RESEARCH_DATA_DIR: cliDir });
          said = status.stdout + status.stderr;
          if (/waiting for the (session store|artifact store|fetch cache)/.test(said)) return said;
        }
        return Date.now() - stoppedAt > ms - 5_000 ? said : undefined;
      }, ms, 500);
      apiStatus = await waitFor('the API saying a session waits for its store', async () => {
        for (const id of ids) {
          const got = await api.call('GET', `/api/research/${id}`);
          const waiting = ((got.body.waiting_for_store ?? []) as { line: string }[]).map((w) => w.line);
          if (got.status !== 200 || waiting.length) return { status: got.status, waiting };
        }
        return undefined;
      }, 20_000, 500);
      // The worker stays live (no restart for a database outage) and says it is not ready.
      health = [(await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status, (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status];
      await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + ms - Date.now())));
    } finally {
      pg.resume();
    }
    const resumedAt = Date.now();
    const inFlight = harness.recorder.of('model').filter((r) => r.start <= resumedAt && (r.end === undefined || r.end >= stoppedAt)).length;
    return { inFlight, waits, cliStatus, apiStatus, health };
  }

  it('a clean run: every session completes, no model call paid twice', async () => {
    clean = await runBatch();
    figures.push(`clean: ${clean.calls.length} model calls for ${SESSIONS} sessions (${clean.repeated} prompts asked twice by design), fetched ${clean.fetched.join('/')}`);
  }, 300_000);

  for (const [label, ms] of [['30 s', 30_000], ['3 minutes', 180_000]] as const) {
    it(`the database stopped for ${label} mid-run: every session completes, nothing dropped, no finished model call repeated`, async () => {
      let seen: Awaited<ReturnType<typeof outage>> | undefined;
      const batch = await runBatch(async (ids) => {
        seen = await outage(ids, ms);
      });
      const { inFlight, waits, cliStatus, apiStatus, health } = seen as NonNullable<typeof seen>;
      expect(apiStatus.status).toBe(200);
      expect(apiStatus.waiting.join('\n')).toMatch(/waiting for the (session store|artifact store|fetch cache) \(attempt \d+: /);
      expect(health).toEqual([200, 503]);
      const extra = batch.calls.length - clean.calls.length;
      figures.push(`${label}: ${batch.calls.length} model calls (clean ${clean.calls.length}: ${extra} paid twice), ${inFlight} in flight during the outage; fetched ${batch.fetched.join('/')}; status said: ${waits[0]}`);
      expect(waits[0]).toMatch(/^waiting for the (session store|artifact store|fetch cache) \(attempt \d+: .*(ECONNREFUSED|terminat|connect|shut)/i);
      expect(cliStatus).toMatch(/waiting for the (session store|artifact store|fetch cache) \(attempt \d+: /);
      // Every source a clean run fetches, fetched; the calls are a clean run's plus the repeats.
      expect(batch.fetched).toEqual(clean.fetched);
      // A clean run's calls plus at most those in flight; none in fact, as activities holding a
      // model's answer wait for the store inside their attempt (and the writer's answer becomes
      // durable on its own once updateReport is split in two).
      expect(extra).toBeGreaterThanOrEqual(0);
      expect(extra).toBeLessThanOrEqual(inFlight);
      expect(extra, 'model calls paid twice').toBe(0);
      expect(batch.repeated).toBe(clean.repeated);
    }, 600_000);
  }

  it('the workers logged the wait and the return, and /metrics counted the store failures', async () => {
    const logs = workers.map((w) => w.output()).join('\n');
    expect(logs).toMatch(/waiting for the (session store|artifact store|fetch cache) \((try|attempt) 1\b/);
    expect(logs).toMatch(/(store|cache) is back after \d+ s; going on/);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const failures = metrics.split('\n').filter((l) => l.startsWith('deep_research_store_failures'));
    expect(failures.length, metrics.slice(0, 2000)).toBeGreaterThan(0);
    expect(failures.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)).toBeGreaterThan(0);
  });
});
