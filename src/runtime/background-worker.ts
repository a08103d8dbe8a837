// Starts the background worker, one process at a time, and records it (src/local/worker-records.ts):
// it needs no Temporal client, so a cold `research` can start the worker first thing
// (src/cli/early-worker.ts) while the rest of the command loads.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../config/child-process';
import type { AppConfig } from '../config/schema';
import { isAlive } from '../local/processes';
import { runningWorkerPid, writeWorkerRecord } from '../local/worker-records';
import { codeFingerprint, deliverySecretsOf, providerFingerprint } from '../local/workers';
import { workerMemory } from '../worker/cache-size';

export interface WorkerLaunch {
  /** The command that runs a worker; this CLI's `worker` by default. */
  command?: string[];
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
