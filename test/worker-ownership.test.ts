// One owner of the background worker: no worker runs that `worker status` does not name. Two
// processes starting it at once start one; serve's watch starts none while Temporal is away (today's
// defect: two overlapping checks each started one, and one of them went unrecorded); a background
// worker that finds another one recorded stops; `worker stop` and `server stop` say when a serve
// will start it again; `worker status` names the foreground worker and the owner.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { connect, ensureWorker } from '../src/runtime/local';
import { readWorkerRecord } from '../src/local/worker-records';
import { isAlive } from '../src/local/processes';
import { waitFor } from './harness';
import { startTestServer } from './harness/temporal';

const SLEEPER = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
const mod = (file: string) => JSON.stringify(path.join(PROJECT_ROOT, 'src', file));

function configFor(dataDir: string, queue: string, address = '127.0.0.1:1') {
  return loadConfig({ DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: address, PATH: process.env.PATH });
}

/** A node process running `code` with the project's TypeScript (tsx). */
function tsxProcess(code: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--require', 'tsx/cjs', '-e', code], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

/** The sleepers (`SLEEPER`) alive now whose command line names `mark`. */
function sleepersMarked(mark: string): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return ps.split('\n').filter((l) => l.includes(mark) && l.includes('setInterval')).map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe('one owner of the background worker', () => {
  it('two processes that start the data directory\'s worker at once start one, and the record names it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-start-race-'));
    const queue = `race-${process.pid}`;
    const mark = `race-mark-${Date.now()}`;
    // Each starter runs what `research` does on a cold start: start the worker unless one runs.
    const starter = `const { startBackgroundWorker } = require(${mod('runtime/background-worker.ts')});
      const { loadConfig } = require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'config', 'load.ts'))});
      const config = loadConfig({ ...process.env });
      startBackgroundWorker(config, (l) => console.log(l), { command: [process.execPath, '-e', 'setInterval(() => {}, 1000) // ${mark}'] });`;
    const env = { DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const starters = [tsxProcess(starter, env), tsxProcess(starter, env), tsxProcess(starter, env)];
    try {
      expect(await Promise.all(starters.map(exitOf))).toEqual([0, 0, 0]);
      const running = sleepersMarked(mark);
      expect(running).toHaveLength(1);
      expect(readWorkerRecord(configFor(dataDir, queue))?.pid).toBe(running[0]);
    } finally {
      for (const pid of sleepersMarked(mark)) process.kill(pid, 'SIGTERM');
    }
  }, 60_000);

  it('serve\'s check starts no worker while Temporal is not there, and one once it is back', async () => {
    const server = await startTestServer();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-away-owner-'));
    const queue = `away-owner-${process.pid}`;
    const config = configFor(dataDir, queue, server.address);
    // The test server is one this data directory did not start: named as a cluster is (else the CLI refuses a foreign server).
    const before = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = server.address;
    const client = await connect(config, { startServer: false, log: () => undefined }).finally(() => {
      if (before === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = before;
    });
    const lines: string[] = [];
    const started: number[] = [];
    try {
      await server.stop();
      // Two checks at once, as two ticks of a watch whose first is slow: neither starts a worker.
      const checks = await Promise.all([0, 1].map(() => ensureWorker(client, (l) => lines.push(l), { command: SLEEPER })));
      expect(checks).toEqual([undefined, undefined]);
      expect(readWorkerRecord(config)).toBeUndefined();
      expect(lines).toEqual([`Temporal is not listening at ${server.address}: the background worker is started once it is back`]);
      await server.restart();
      const pid = await waitFor('a worker once Temporal is back', async () => ensureWorker(client, (l) => lines.push(l), { command: SLEEPER }), 30_000, 500);
      started.push(pid);
      expect(readWorkerRecord(config)?.pid).toBe(pid);
      expect(await ensureWorker(client, (l) => lines.push(l), { command: SLEEPER })).toBe(pid);
    } finally {
      for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
      await client.close();
      await client.connection.close().catch(() => undefined);
      await server.stop();
    }
  }, 120_000);

  it('a background worker that finds another one recorded for its data directory stops', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-replaced-'));
    const queue = `replaced-${process.pid}`;
    const other = spawn(SLEEPER[0], SLEEPER.slice(1), { stdio: 'ignore' });
    try {
      const worker = tsxProcess(`const { stopWhenReplaced, recordWorkerPid } = require(${mod('local/worker-records.ts')});
        const config = require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'config', 'load.ts'))}).loadConfig({ ...process.env });
        recordWorkerPid(config, 'background');
        stopWhenReplaced(config, (l) => console.log(l), 200);
        setInterval(() => {}, 1000);`, { DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue });
      let said = '';
      worker.stdout?.on('data', (d: Buffer) => (said += d));
      await waitFor('the worker to record itself', async () => readWorkerRecord(configFor(dataDir, queue))?.pid === worker.pid, 30_000, 100);
      expect(isAlive(worker.pid as number)).toBe(true);
      // Another start recorded its own worker: this one is not the data directory's any more.
      writeFileSync(path.join(dataDir, `worker-${queue}.pid`), JSON.stringify({ pid: other.pid, started_at: new Date().toISOString() }));
      await exitOf(worker);
      expect(said).toContain(`another background worker (pid ${other.pid}) is recorded for this data directory: this one (pid ${worker.pid}) stops`);
    } finally {
      other.kill('SIGTERM');
    }
  }, 60_000);

  it('worker stop and server stop say that a serve owning the worker starts it again; worker status names the foreground worker and the owner', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-stop-owned-'));
    const queue = `stop-owned-${process.pid}`;
    const background = spawn(SLEEPER[0], SLEEPER.slice(1), { stdio: 'ignore' });
    const foreground = spawn(SLEEPER[0], SLEEPER.slice(1), { stdio: 'ignore' });
    writeFileSync(path.join(dataDir, `worker-${queue}.pid`), JSON.stringify({ pid: background.pid }));
    writeFileSync(path.join(dataDir, `worker-${queue}.foreground.pid`), JSON.stringify({ pid: foreground.pid, started_at: '2026-01-01T00:00:00Z' }));
    const serve = tsxProcess(`require(${mod('local/worker-owner.ts')}).takeWorkerOwnership(${JSON.stringify(dataDir)}, ${JSON.stringify(queue)}, 'serve'); setInterval(() => {}, 1000)`);
    const env = { ...process.env, DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, encoding: 'utf8' });
    try {
      await waitFor('serve to hold the lock', async () => (await import('../src/local/worker-owner')).workerOwner(dataDir, queue)?.pid === serve.pid, 30_000, 100);
      const status = cli(['worker', 'status']).stdout;
      expect(status).toContain(`background worker: pid ${background.pid}`);
      expect(status).toContain(`foreground worker: pid ${foreground.pid}, since 2026-01-01T00:00:00Z`);
      expect(status).toContain(`owned by serve (pid ${serve.pid}): it starts the background worker again within 10 s if it stops`);
      const json = JSON.parse(cli(['worker', 'status', '--json']).stdout) as Record<string, unknown>;
      expect(json).toMatchObject({ background_worker: { pid: background.pid }, foreground_worker: { pid: foreground.pid }, other_workers: null });
      const stop = cli(['worker', 'stop']);
      expect(stop.stderr).toContain(`stopped the background worker (pid ${background.pid})`);
      expect(stop.stderr).toContain(`serve (pid ${serve.pid}) owns this data directory's background worker and starts it again within 10 s (once Temporal answers); stop serve to stop it for good`);
      expect(await exitOf(background)).toBeNull();
      // The foreground worker is the user's own: never stopped by us.
      expect(isAlive(foreground.pid as number)).toBe(true);
      expect(cli(['server', 'stop']).stderr).toContain(`serve (pid ${serve.pid}) owns this data directory's background worker`);
    } finally {
      for (const child of [background, foreground, serve]) if (child.exitCode === null) child.kill('SIGTERM');
    }
  }, 90_000);
});
