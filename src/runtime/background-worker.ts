// The background worker's process and its record (<data dir>/worker-<task queue>.pid): started,
// found and recognised without loading the Temporal client, so a cold `research` can start the
// worker first thing (src/cli/early-worker.ts) while the rest of the command loads.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../config/child-process';
import type { AppConfig } from '../config/schema';
import { isAlive } from '../temporal/dev-server';
import { workerMemory } from '../worker/cache-size';
import { codeFingerprint, deliverySecretsOf, parseWorkerRecord, providerFingerprint, type WorkerRecord } from './workers';

/** No TEMPORAL_ADDRESS: the CLI starts (and uses) the local dev server. */
export function usesEmbeddedServer(config: Pick<AppConfig, 'environment'>): boolean {
  return config.environment.temporal.embedded;
}

export interface WorkerLaunch {
  /** The command that runs a worker; this CLI's `worker` by default. */
  command?: string[];
}

/** The background worker's pid file; a foreground worker (`deep-research worker`) has its own, so nothing here ever stops it. */
function workerPidFile(config: AppConfig, kind: 'background' | 'foreground' = 'background'): string {
  return path.join(config.data_dir, `worker-${config.temporal.task_queue}${kind === 'foreground' ? '.foreground' : ''}.pid`);
}

export function readWorkerRecord(config: AppConfig, kind: 'background' | 'foreground' = 'background'): WorkerRecord | undefined {
  try {
    return parseWorkerRecord(readFileSync(workerPidFile(config, kind), 'utf8'));
  } catch {
    return undefined;
  }
}

export function runningWorkerPid(config: AppConfig): number | undefined {
  const record = readWorkerRecord(config);
  return record && isAlive(record.pid) ? record.pid : undefined;
}

/**
 * Starts `deep-research worker --background` and records it. It needs no server to start: on a cold
 * start the CLI starts it beside the local Temporal server, and it loads its code meanwhile. One
 * process at a time starts it (a lock file beside the record): a process that finds the data
 * directory's worker started meanwhile uses that one, so no worker runs that the record does not name.
 */
export function startBackgroundWorker(config: AppConfig, log: (line: string) => void, launch: WorkerLaunch = {}): number | undefined {
  const lock = takeStartLock(config);
  if (!lock) return runningWorkerPid(config);
  try {
    const running = runningWorkerPid(config);
    if (running) return running;
    const logFd = openSync(path.join(config.data_dir, 'worker.log'), 'a');
    const [command, ...args] = launch.command ?? [process.execPath, ...process.execArgv, process.argv[1], 'worker', '--background'];
    const child = spawn(command, args, { detached: true, stdio: ['ignore', logFd, logFd], env: childEnvironment(config, { memory: workerMemory(config) }) });
    closeSync(logFd);
    child.unref();
    writeWorkerRecord(config, { pid: child.pid as number, fingerprint: providerFingerprint(config), code: codeFingerprint(), started_at: new Date().toISOString(), secrets: deliverySecretsOf(config) });
    log(`started a background worker (pid ${child.pid}, log ${path.join(config.data_dir, 'worker.log')})`);
    return child.pid as number;
  } finally {
    lock();
  }
}

/** How long a start lock is honoured: a starter that died holding it leaves it to the next one. */
const START_LOCK_MS = 30_000;

/** Takes the data directory's start lock (created exclusively); its release, or undefined while another live process holds it. */
function takeStartLock(config: AppConfig): (() => void) | undefined {
  mkdirSync(config.data_dir, { recursive: true });
  const file = path.join(config.data_dir, `worker-${config.temporal.task_queue}.starting`);
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify({ pid: process.pid, at: Date.now() }));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readStartLock(file);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid) && Date.now() - holder.at < START_LOCK_MS) return undefined;
      rmSync(file, { force: true });
    }
  }
  return undefined;
}

function readStartLock(file: string): { pid: number; at: number } | undefined {
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; at: number };
    return Number.isInteger(lock.pid) ? lock : undefined;
  } catch {
    return undefined;
  }
}

/**
 * In a background worker: stops it once the record names another live background worker (two
 * started at once, or one started while this one was thought gone), so the one `worker status`
 * names and `worker stop` stops is the only one running.
 */
export function stopWhenReplaced(config: AppConfig, log: (line: string) => void, everyMs = 5_000): void {
  const timer = setInterval(() => {
    const record = readWorkerRecord(config);
    if (!record || record.pid === process.pid || !isAlive(record.pid)) return;
    clearInterval(timer);
    log(`another background worker (pid ${record.pid}) is recorded for this data directory: this one (pid ${process.pid}) stops`);
    process.kill(process.pid, 'SIGTERM');
    // A worker still waiting for its server has no shutdown to run: it leaves now.
    setTimeout(() => process.exit(0), 30_000).unref();
  }, everyMs);
  timer.unref();
}

/** Our background worker while it has not polled yet: started within the last two minutes and alive. */
export function startingWorker(config: AppConfig, now = Date.now()): { pid: number; since: number } | undefined {
  const record = readWorkerRecord(config);
  const since = record?.started_at ? Date.parse(record.started_at) : NaN;
  return record && isAlive(record.pid) && now - since < 120_000 ? { pid: record.pid, since } : undefined;
}

function writeWorkerRecord(config: AppConfig, record: WorkerRecord, kind: 'background' | 'foreground' = 'background'): void {
  mkdirSync(config.data_dir, { recursive: true });
  writeFileSync(workerPidFile(config, kind), JSON.stringify(record));
}

/** A worker records itself with the environment it runs with: a foreground one in its own file, never stopped by us. */
export function recordWorkerPid(config: AppConfig, kind: 'background' | 'foreground'): void {
  writeWorkerRecord(config, { pid: process.pid, fingerprint: providerFingerprint(config), code: codeFingerprint(), started_at: new Date().toISOString(), secrets: deliverySecretsOf(config) }, kind);
}
