// Workers that are really there: a poller whose process died does not count, the background
// worker's environment is compared by fingerprint (never by value), worker status/stop work.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, ensureWorker } from '../src/runtime/local';
import { readWorkerRecord } from '../src/local/worker-records';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { livePollers, parseWorkerRecord, providerFingerprint } from '../src/local/workers';
import { isAlive } from '../src/local/processes';
import { takeWorkerOwnership, workerOwner } from '../src/local/worker-owner';
import { startHarness, testConfig, waitFor } from './harness';
import { startChildWorker } from './harness/child-worker';
import { deploymentBuilds } from '../src/client/builds';
import { BASE_MB, MIN_CACHED, SESSION_MB, workerHeapMb, workerMemory, workflowCacheSize } from '../src/worker/cache-size';
import { ResearchClient } from '../src/client/research-client';

describe('worker liveness', () => {
  // These workers use the test run's Temporal server on purpose, as a user with TEMPORAL_ADDRESS
  // does (without it, the CLI refuses a server another data directory started).
  const before = process.env.TEMPORAL_ADDRESS;
  beforeAll(() => {
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = before;
  });
  it('a poller on this machine counts only while its process runs; old polls never', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid as number;
    const now = Date.now();
    const at = (ms: number) => ({ seconds: Math.floor(ms / 1000) });
    const pollers = [
      { identity: `${dead}@${hostname()}`, lastAccessTime: at(now - 5_000) },
      { identity: `${process.pid}@${hostname()}`, lastAccessTime: at(now - 5_000) },
      { identity: '4242@another-machine', lastAccessTime: at(now - 5_000) },
      { identity: `${process.pid}@${hostname()}`, lastAccessTime: at(now - 120_000) },
    ];
    expect(livePollers(pollers, now).map((p) => p.identity)).toEqual([`${process.pid}@${hostname()}`, '4242@another-machine']);
  });

  it('the worker fingerprint changes with a key, a base URL or a delivery setting and reveals none', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-fingerprint-'));
    const base = { OPENAI_API_KEY: 'sk-secret-1', OPENAI_BASE_URL: 'http://a', PATH: '/bin', HOME: '/root', DEEP_RESEARCH_DATA_DIR: dataDir };
    // The fingerprint of a config as a process reads it from this environment.
    const fingerprint = (env: Record<string, string>) => providerFingerprint(loadConfig(env));
    const fp = fingerprint(base);
    expect(fp).not.toContain('secret');
    expect(fingerprint({ ...base, PATH: '/usr/bin' })).toBe(fp);
    expect(fingerprint({ ...base, OPENAI_API_KEY: 'sk-secret-2' })).not.toBe(fp);
    expect(fingerprint({ ...base, OPENAI_BASE_URL: 'http://b' })).not.toBe(fp);
    expect(fingerprint({ ...base, TAVILY_API_KEY: 'x' })).not.toBe(fp);
    expect(fingerprint({ ...base, LOCAL_DOCS_DIR: '/srv/docs' })).not.toBe(fp);
    expect(fingerprint({ ...base, DOI_RESOLVER_URL: 'http://127.0.0.1:9/doi' })).not.toBe(fp);
    // Delivery set after the worker started: e-mail and signed webhooks must reach it.
    for (const name of ['SMTP_HOST', 'SMTP_PORT', 'SMTP_USER', 'SMTP_PASS', 'SMTP_FROM', 'SMTP_SECURE', 'WEBHOOK_SECRET', 'LOCAL_EMBEDDING_MODEL', 'DATABASE_URL', 'ARTIFACTS_URL']) {
      expect(fingerprint({ ...base, [name]: name === 'LOCAL_EMBEDDING_MODEL' ? 'ollama:x' : 'x' }), name).not.toBe(fp);
    }
  });

  it('ensureWorker starts one when none is alive, restarts it when the provider environment changes, never stops a foreground worker', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-ensure-'));
    const queue = `ensure-${process.pid}-${Date.now()}`;
    const place = { DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: inject('temporalAddress'), PATH: process.env.PATH };
    const config = loadConfig(place);
    const client = await connect(config, { startServer: false, log: () => undefined });
    // A CLI whose environment is `env`: its config, on the same connection.
    const cliWith = (env: Record<string, string | undefined>) => new ResearchClient(client.connection, loadConfig({ ...place, ...env }));
    const command = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    // The user's own foreground worker of this data directory, started with other keys.
    const foreground = spawn(command[0], command.slice(1), { stdio: 'ignore' });
    writeFileSync(path.join(dataDir, `worker-${queue}.foreground.pid`), JSON.stringify({ pid: foreground.pid, fingerprint: 'another-env' }));
    const lines: string[] = [];
    const pids: number[] = [];
    try {
      const env1 = { PATH: process.env.PATH, OPENAI_API_KEY: 'key-1' };
      const first = (await ensureWorker(cliWith(env1), (l) => lines.push(l), { command })) as number;
      pids.push(first);
      expect(isAlive(first)).toBe(true);
      expect(readWorkerRecord(config)).toMatchObject({ pid: first, fingerprint: providerFingerprint(cliWith(env1).config) });
      expect(lines.at(-1)).toMatch(new RegExp(`^started a background worker \\(pid ${first},`));
      expect(await ensureWorker(cliWith(env1), (l) => lines.push(l), { command })).toBe(first);
      // It runs with the heap settings its memory budget calls for (700 MB by default).
      const environ = readFileSync(`/proc/${first}/environ`, 'utf8').split('\0');
      expect(environ).toContain('MALLOC_ARENA_MAX=2');
      expect(environ).toContain(`NODE_OPTIONS=--max-old-space-size=${workerHeapMb(700)} --max-semi-space-size=2`);

      const second = (await ensureWorker(cliWith({ ...env1, OPENAI_API_KEY: 'key-2' }), (l) => lines.push(l), { command })) as number;
      pids.push(second);
      expect(second).not.toBe(first);
      expect(lines).toContain('the provider environment changed since the background worker started: restarting it');
      expect(isAlive(first)).toBe(false);
      expect(isAlive(second)).toBe(true);
      expect(isAlive(foreground.pid as number)).toBe(true);

      // E-mail delivery configured after the worker started: the worker is restarted to see it.
      const third = (await ensureWorker(cliWith({ ...env1, OPENAI_API_KEY: 'key-2', SMTP_HOST: '127.0.0.1', WEBHOOK_SECRET: 's' }), (l) => lines.push(l), { command })) as number;
      pids.push(third);
      expect(third).not.toBe(second);
      expect(isAlive(second)).toBe(false);
    } finally {
      for (const pid of [...pids, foreground.pid as number]) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
      await client.close();
      await client.connection.close();
    }
  });

  it('the workflow cache holds what the memory budget leaves for sessions; a fixed size wins; nonsense is refused', () => {
    const cacheFor = (env: Record<string, string>) => workflowCacheSize(loadConfig({ PATH: process.env.PATH, ...env }).temporal);
    expect(cacheFor({})).toBe(Math.floor((700 - BASE_MB) / SESSION_MB));
    expect(cacheFor({ DEEP_RESEARCH_WORKER_MEMORY_MB: '2000' })).toBe(Math.floor((2000 - BASE_MB) / SESSION_MB));
    expect(cacheFor({ DEEP_RESEARCH_WORKER_MEMORY_MB: '2000' })).toBeGreaterThan(cacheFor({}));
    expect(cacheFor({ DEEP_RESEARCH_WORKER_MEMORY_MB: '300' })).toBe(MIN_CACHED);
    expect(cacheFor({ DEEP_RESEARCH_WORKER_MEMORY_MB: '2000', DEEP_RESEARCH_MAX_CACHED_WORKFLOWS: '50' })).toBe(50);
    expect(() => cacheFor({ DEEP_RESEARCH_WORKER_MEMORY_MB: 'lots' })).toThrow(/worker_memory_mb/);
    expect(() => cacheFor({ DEEP_RESEARCH_MAX_CACHED_WORKFLOWS: '-1' })).toThrow(/max_cached_workflows/);
  });

  it('a worker process gets heap caps from its memory budget, unless its Node options set their own', () => {
    const started = (env: Record<string, string>) => loadConfig({ PATH: process.env.PATH as string, ...env });
    expect(workerHeapMb(700)).toBe(256);
    expect(workerHeapMb(4000)).toBe(1400);
    const big = workerMemory(started({ NODE_OPTIONS: '--enable-source-maps', DEEP_RESEARCH_WORKER_MEMORY_MB: '4000' }));
    expect(big.node_options).toBe('--enable-source-maps --max-old-space-size=1400 --max-semi-space-size=2');
    expect(big.malloc_arena_max).toBe('2');
    const own = workerMemory(started({ NODE_OPTIONS: '--max-old-space-size=3000', MALLOC_ARENA_MAX: '4' }));
    expect(own.node_options).toBe('--max-old-space-size=3000 --max-semi-space-size=2');
    expect(own.malloc_arena_max).toBe('4');
  });

  it('a serve that owns the data directory\'s worker keeps it: the CLI with other keys uses it, never restarts it, and says what it lacks', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-owner-'));
    const queue = `owner-${process.pid}-${Date.now()}`;
    const place = { DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: inject('temporalAddress'), PATH: process.env.PATH };
    const config = loadConfig(place);
    const client = await connect(config, { startServer: false, log: () => undefined });
    // A process (serve, the CLI) whose environment is `env`: its config, on the same connection.
    const processWith = (env: Record<string, string | undefined>) => new ResearchClient(client.connection, loadConfig({ ...place, ...env }));
    const command = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    const pids: number[] = [];
    // `serve`: another process that takes the data directory's lock and holds it while it runs.
    const takeLock = `require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'local', 'worker-owner.ts'))}).takeWorkerOwnership(${JSON.stringify(dataDir)}, ${JSON.stringify(queue)}, 'serve'); setInterval(() => {}, 1000)`;
    // The worker as serve started it; then serve holds the lock.
    const servesEnv = { PATH: process.env.PATH, OPENAI_API_KEY: 'serve-key' };
    const first = (await ensureWorker(processWith(servesEnv), log, { command })) as number;
    pids.push(first);
    const serve = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', takeLock], { stdio: 'ignore' });
    try {
      await waitFor('serve to hold the lock', async () => workerOwner(dataDir, queue)?.pid === serve.pid);
      // The CLI, with its own keys and a webhook secret: it uses serve's worker as it is.
      const cliEnv = { PATH: process.env.PATH, OPENAI_API_KEY: 'cli-key', WEBHOOK_SECRET: 's1' };
      expect(await ensureWorker(processWith(cliEnv), log, { command })).toBe(first);
      expect(await ensureWorker(processWith(cliEnv), log, { command })).toBe(first);
      expect(isAlive(first)).toBe(true);
      expect(readWorkerRecord(config)).toMatchObject({ pid: first, fingerprint: providerFingerprint(processWith(servesEnv).config), secrets: [] });
      const told = lines.filter((l) => l.includes('belongs to serve'));
      expect(told).toHaveLength(1);
      expect(told[0]).toMatch(new RegExp(`^the background worker \\(pid ${first}\\) belongs to serve \\(pid ${serve.pid}\\), which started it with another environment; it is used as it is .*; it lacks WEBHOOK_SECRET, which this environment has`));
      expect(lines.some((l) => /restarting it/.test(l))).toBe(false);
      // With the worker gone, the CLI leaves starting one to its owner.
      process.kill(first, 'SIGTERM');
      await waitFor('the worker to end', async () => !isAlive(first));
      expect(await ensureWorker(processWith(cliEnv), log, { command })).toBeUndefined();
      expect(lines.at(-1)).toBe(`no background worker runs; serve (pid ${serve.pid}) owns it and starts one within 10 s`);
      // Once serve has gone, the CLI starts one, and a new serve takes over the lock it left.
      const exited = new Promise((r) => serve.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
      const cliWorker = (await ensureWorker(processWith(cliEnv), log, { command })) as number;
      pids.push(cliWorker);
      expect(isAlive(cliWorker)).toBe(true);
      expect(readWorkerRecord(config)?.secrets).toEqual(['WEBHOOK_SECRET']);
      const lock = takeWorkerOwnership(dataDir, queue, 'serve');
      expect(lock.held()).toBe(true);
      expect(workerOwner(dataDir, queue)?.pid).toBe(process.pid);
      lock.release();
      expect(workerOwner(dataDir, queue)).toBeUndefined();
    } finally {
      if (serve.exitCode === null) serve.kill('SIGKILL');
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
      await client.close();
      await client.connection.close();
    }
  });

  it('worker status counts worker processes: one process serving six task queues is one live worker, and none once it is killed', async () => {
    const harness = await startHarness();
    const { config, env } = testConfig(harness, inject('temporalAddress'));
    const worker = await startChildWorker(env);
    const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
    try {
      const client = await connect(config, { startServer: false, log: () => undefined });
      try {
        const builds = () => deploymentBuilds(client.connection.workflowService, config.temporal.namespace, config.temporal.task_queue);
        // Its heartbeats (one per task queue it serves) come in: still one process.
        await waitFor('the worker heartbeats', async () => {
          const page = await client.connection.workflowService.listWorkers({ namespace: config.temporal.namespace, pageSize: 200 });
          return (page.workersInfo ?? []).filter((w) => w.workerHeartbeat?.workerIdentity === `${worker.process.pid}@${hostname()}`).length >= 2;
        }, 60_000, 1_000);
        expect((await builds()).find((b) => b.current)?.live_workers).toBe(1);
        const status = JSON.parse(cli(['worker', 'status', '--json']).stdout) as { live_pollers: number; counted: string; builds: { current: boolean; live_workers: number }[] };
        expect(status).toMatchObject({ live_pollers: 1, counted: 'processes' });
        // Neither record of this data directory names it: said, so the count adds up.
        expect((status as unknown as { other_workers: string[] }).other_workers).toEqual([`${worker.pid()}@${hostname()}`]);
        expect(cli(['worker', 'status']).stdout).toContain(`live worker processes polling "${config.temporal.task_queue}": 1 (1 not started from this data directory: ${worker.pid()}@${hostname()})`);
        expect(status.builds.find((b) => b.current)?.live_workers).toBe(1);
        expect(cli(['worker', 'status']).stdout).toMatch(/\(current\): 1 live worker process, /);
        // Killed: it no longer counts, without waiting for its heartbeats to age.
        await worker.kill('SIGKILL');
        expect((await builds()).find((b) => b.current)?.live_workers).toBe(0);
      } finally {
        await client.close();
        await client.connection.close();
      }
    } finally {
      await worker.kill('SIGKILL');
      await harness.close();
    }
  }, 120_000);

  it('reads old and new pid files', () => {
    expect(parseWorkerRecord('123\n')).toEqual({ pid: 123 });
    expect(parseWorkerRecord('{"pid":7,"fingerprint":"ab"}')).toEqual({ pid: 7, fingerprint: 'ab' });
    expect(parseWorkerRecord('garbage')).toBeUndefined();
  });

  it('worker status names the background worker; worker stop ends it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-workers-'));
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const queue = 'workers-test';
    writeFileSync(path.join(dataDir, `worker-${queue}.pid`), JSON.stringify({ pid: sleeper.pid, fingerprint: 'not-this-env', started_at: '2026-01-01T00:00:00Z' }));
    const env = { ...process.env, DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: queue, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const spawnAsync = (_: unknown, args: string[]) =>
      new Promise<{ stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.once('exit', () => resolve({ stderr }));
      });
    const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, encoding: 'utf8' });
    const status = JSON.parse(cli(['worker', 'status', '--json']).stdout) as { background_worker: { pid: number; environment_changed: boolean }; live_pollers: number | null };
    expect(status.background_worker).toMatchObject({ pid: sleeper.pid, environment_changed: true });
    expect(status.live_pollers).toBeNull();
    const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.once('exit', (_code, signal) => resolve(signal)));
    const stop = spawnAsync(cli, ['worker', 'stop']);
    expect(await exited).toBe('SIGTERM');
    expect((await stop).stderr).toContain(`stopped the background worker (pid ${sleeper.pid})`);
    expect(isAlive(sleeper.pid as number)).toBe(false);
    expect(cli(['worker', 'stop']).stderr).toContain('no background worker of this data directory is running');
    expect(cli(['worker', 'restart']).stderr.trim()).toBe('deep-research: unknown worker action "restart" (status, stop, adopt)');
  });
});
