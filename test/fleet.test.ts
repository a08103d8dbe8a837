// A fleet: two worker processes with their own data directories share one PostgreSQL and one
// Temporal server. One session's activities run on both; kill -9 of one mid-run and the other
// finishes with no finished call repeated; `list`, `report` and the API in a third process (its own
// empty data dir) see the session and every artifact the workers stored.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import { PROJECT_ROOT } from '../src/config/load';
import { startChildWorker, type ChildWorker } from './harness/child-worker';
import { startHarness, testConfig, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';
import { createDatabase, startPostgres, type PostgresOrSkip } from './harness/postgres';
import type { RecordedRequest } from './harness/recorder';
import { startService, type TestService } from './harness/service';

const postgres: PostgresOrSkip = await startPostgres();
if (postgres.skip) console.warn(`fleet test skipped: ${postgres.skip}`);

/** Calls that ran twice although their first run had finished well before the kill. */
function repeatedFinishedCalls(duplicates: Map<string, RecordedRequest[]>, killedAt: number): string[] {
  const graceMs = 1_500; // a response can reach the fake server's log just before the process dies
  return [...duplicates]
    .filter(([key]) => key !== '/robots.txt') // robots.txt is cached per worker process, by design
    .filter(([, list]) => list[0].end !== undefined && list[0].end < killedAt - graceMs)
    .map(([key]) => key);
}

const dataDir = (name: string) => mkdtempSync(path.join(os.tmpdir(), `dr-fleet-${name}-`));

describe.skipIf(!postgres.pg)('a fleet of workers on shared PostgreSQL', () => {
  let harness: Harness;
  const workers: ChildWorker[] = [];
  let connection: Connection | undefined;
  let client: ResearchClient | undefined;
  let api: TestService | undefined;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 1 }, web: { delayMs: 800 } });
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await api?.close();
    await client?.close();
    await connection?.close();
    await harness?.close();
    await postgres.pg?.stop();
  });

  it('spreads one session over two workers, survives kill -9 of one, and a third process sees it all', async () => {
    const databaseUrl = await createDatabase(postgres.pg?.url as string, 'fleet');
    const { config, env } = testConfig(harness, inject('temporalAddress'), { DATABASE_URL: databaseUrl });
    // Bundled once here rather than in each worker: that is seconds of CPU on a small machine.
    const bundle = path.join(dataDir('bundle'), 'workflows.js');
    writeFileSync(bundle, (await workflowBundle()).code);
    const dirs = [dataDir('a'), dataDir('b')];
    workers.push(...(await Promise.all(dirs.map((dir) => startChildWorker({ ...env, DEEP_RESEARCH_DATA_DIR: dir, DEEP_RESEARCH_WORKFLOW_BUNDLE: bundle })))));

    // The third process: the API, with a data directory of its own that no worker writes to.
    config.data_dir = dataDir('api');
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
    client = new ResearchClient(connection, config, true);
    api = await startService({ client } as TestEnvironment);
    const created = await api.call('POST', '/api/research', {
      body: { query: 'Fleet test: wind turbines', auto_approve: true, settings: { max_sources: 12, batch_size: 4, fetch_concurrency: 4, max_iterations: 2 } },
    });
    expect(created.status).toBe(201);
    const id = created.body.research_id as string;
    const c = client;

    const workerOf = async () => {
      const identities = new Set<string>();
      for (const event of (await c.handle(id).fetchHistory()).events ?? []) {
        const identity = event.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
      return identities;
    };
    // Mid-run: a worker has finished activities of this session, which is still researching. That
    // worker is killed, so the other has to take the session over. (Which worker runs what is the
    // server's choice: a workflow's activities go eagerly to its own worker when it has room.)
    let seen = '';
    await waitFor('a finished analysis, the session still researching', async () => {
      const s = await c.state(id);
      const workersSeen = await workerOf();
      seen = `${s.status}/${s.phase}, ${s.findings.length} findings, activities on ${workersSeen.size} worker(s)`;
      return s.status === 'running' && s.findings.length > 0 && workersSeen.size > 0;
    }, 90_000, 100).catch((err: Error) => {
      throw new Error(`${err.message} (last seen: ${seen})`);
    });
    const busy = [...(await workerOf())].map((identity) => Number(identity.split('@')[0]));
    const victim = workers.find((w) => busy.includes(w.process.pid as number)) as ChildWorker;

    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    await c.waitForResult(id);
    const s = await c.state(id);
    expect(s.status).toBe('completed');
    for (const server of ['model', 'search', 'web'] as const) {
      expect(repeatedFinishedCalls(harness.recorder.duplicates(server), killedAt), `${server} calls repeated after the kill`).toEqual([]);
    }
    const pids = [...(await workerOf())].map((identity) => Number(identity.split('@')[0]));
    expect(new Set(pids)).toEqual(new Set(workers.map((w) => w.process.pid)));

    // Nothing landed in the workers' own data directories: sessions and artifacts are shared.
    for (const dir of dirs) {
      expect(existsSync(path.join(dir, 'sessions.db')), dir).toBe(false);
      expect(existsSync(path.join(dir, 'artifacts')), dir).toBe(false);
    }

    // The API lists the session and serves every artifact either worker stored.
    await waitFor('the persisted final snapshot', async () => (await c.sessions().get(id))?.status === 'completed');
    const listed = await api.call('GET', '/api/research');
    expect(listed.body.sessions.map((x: { research_id: string; status: string }) => [x.research_id, x.status])).toEqual([[id, 'completed']]);
    const files = s.sources.filter((x) => x.status === 'fetched').flatMap((x) => [x.file_id, x.text_file_id]).filter((f): f is string => !!f);
    expect(files.length).toBeGreaterThan(4);
    for (const fileId of files) {
      const res = await api.call('GET', `/api/research/${id}/artifacts/${fileId}`);
      expect(res.status, fileId).toBe(200);
    }
    const report = await api.call('GET', `/api/research/${id}/report`);
    expect(report.status).toBe(200);

    // `list` and `report` from the command line, in yet another data directory.
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], {
        env: { ...process.env, ...env, DEEP_RESEARCH_DATA_DIR: dataDir('cli') },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const list = cli(['list', '--json']);
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).sessions.map((x: { research_id: string }) => x.research_id)).toEqual([id]);
    const printed = cli(['report', id]);
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toBe(s.report_markdown.trim());
  }, 240_000);
});
