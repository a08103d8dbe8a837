// Who owns a data directory's background worker. A long-running `serve` takes a lock file in the
// data directory (created exclusively; a lock whose process is gone is taken over); while it holds
// it, only it starts or restarts the background worker, and every other process — the CLI, a second
// serve — uses the worker that runs. Without an owner (only short CLI commands), the CLI starts and
// restarts the worker as before. So serve and the CLI on one data directory never restart the
// worker back and forth into their own environments.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { isAlive } from './processes';

export interface WorkerOwner {
  pid: number;
  /** What holds it, for messages: "serve". */
  command: string;
  host: string;
  since: string;
}

export function ownerFile(dataDir: string, taskQueue: string): string {
  return path.join(dataDir, `worker-${taskQueue}.owner`);
}

/** The owner of the data directory's background worker, if a live process holds the lock. */
export function workerOwner(dataDir: string, taskQueue: string): WorkerOwner | undefined {
  const owner = readOwner(ownerFile(dataDir, taskQueue));
  return owner && ownerAlive(owner) ? owner : undefined;
}

function readOwner(file: string): WorkerOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as WorkerOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** A lock of another machine (a shared volume) is trusted as live; on this machine, while its process runs. */
const ownerAlive = (owner: WorkerOwner): boolean => owner.host !== hostname() || isAlive(owner.pid);

export interface OwnerLock {
  /** Whether this process holds the lock now (it may take it over later from an owner that died). */
  held(): boolean;
  /** Tries again to take the lock (an owner that died leaves it); true when held. */
  retake(): boolean;
  release(): void;
}

/** Takes the lock for this process if nobody live holds it; the lock object can try again later. */
export function takeWorkerOwnership(dataDir: string, taskQueue: string, command: string): OwnerLock {
  const file = ownerFile(dataDir, taskQueue);
  let mine = false;
  const attempt = (): boolean => {
    if (mine) return true;
    mkdirSync(dataDir, { recursive: true });
    for (let tries = 0; tries < 2; tries++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, JSON.stringify({ pid: process.pid, command, host: hostname(), since: new Date().toISOString() } satisfies WorkerOwner));
        closeSync(fd);
        return (mine = true);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = readOwner(file);
        if (owner && ownerAlive(owner)) return owner.pid === process.pid && owner.host === hostname() ? (mine = true) : false;
        // The owner is gone (or the file is unreadable): take it over.
        rmSync(file, { force: true });
      }
    }
    return false;
  };
  attempt();
  return {
    held: () => mine,
    retake: attempt,
    release: () => {
      if (!mine) return;
      mine = false;
      const owner = readOwner(file);
      if (owner?.pid === process.pid && owner.host === hostname()) rmSync(file, { force: true });
    },
  };
}
