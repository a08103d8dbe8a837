// The worker records of a data directory (<data dir>/worker-<task queue>.pid, and .foreground.pid
// for a worker started by hand): which worker runs, since when, with which environment and code.
// Read without loading the Temporal client, so a cold `research` finds or starts its worker first.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { delay, isAlive } from './processes';
import { workerOwner, type WorkerOwner } from './worker-owner';
import { codeFingerprint, deliverySecretsOf, parseWorkerRecord, providerFingerprint, type WorkerRecord } from './workers';

/** No TEMPORAL_ADDRESS: the CLI starts (and uses) the local dev server. */
export function usesEmbeddedServer(config: Pick<AppConfig, 'environment'>): boolean {
  return config.environment.temporal.embedded;
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

/** Our background worker while it has not polled yet: started within the last two minutes and alive. */
export function startingWorker(config: AppConfig, now = Date.now()): { pid: number; since: number } | undefined {
  const record = readWorkerRecord(config);
  const since = record?.started_at ? Date.parse(record.started_at) : NaN;
  return record && isAlive(record.pid) && now - since < 120_000 ? { pid: record.pid, since } : undefined;
}

export function writeWorkerRecord(config: AppConfig, record: WorkerRecord, kind: 'background' | 'foreground' = 'background'): void {
  mkdirSync(config.data_dir, { recursive: true });
  writeFileSync(workerPidFile(config, kind), JSON.stringify(record));
}

/** A worker records itself with the environment it runs with: a foreground one in its own file, never stopped by us. */
export function recordWorkerPid(config: AppConfig, kind: 'background' | 'foreground'): void {
  writeWorkerRecord(config, { pid: process.pid, fingerprint: providerFingerprint(config), code: codeFingerprint(), started_at: new Date().toISOString(), secrets: deliverySecretsOf(config) }, kind);
}

/** Stops the background worker this data directory started; true when there was one. */
export async function stopBackgroundWorker(config: AppConfig, log: (line: string) => void): Promise<boolean> {
  const pid = runningWorkerPid(config);
  if (!pid) return false;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await delay(100);
  log(`stopped the background worker (pid ${pid})`);
  return true;
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

/** This data directory's workers as its records say: the background one, one started by hand, and who owns the background one. */
export interface LocalWorkers {
  background?: { pid: number; started_at?: string; /** Started with other provider settings: the next start restarts it. */ environment_changed: boolean };
  foreground?: { pid: number; started_at?: string };
  owner?: WorkerOwner;
  /** pid@host of each, as their pollers call themselves. */
  identities: string[];
}

export function localWorkers(config: AppConfig): LocalWorkers {
  const record = readWorkerRecord(config);
  const foreground = readWorkerRecord(config, 'foreground');
  const background = record && isAlive(record.pid) ? { pid: record.pid, started_at: record.started_at, environment_changed: !!record.fingerprint && record.fingerprint !== providerFingerprint(config) } : undefined;
  const live = foreground && isAlive(foreground.pid) ? { pid: foreground.pid, started_at: foreground.started_at } : undefined;
  const owner = workerOwner(config.data_dir, config.temporal.task_queue);
  return { background, foreground: live, owner, identities: [background?.pid, live?.pid].filter(Boolean).map((pid) => `${pid}@${hostname()}`) };
}
