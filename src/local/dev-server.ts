// The embedded default: a local `temporal server start-dev` with SQLite persistence in the data
// directory. It outlives the command that started it; `server stop` ends it.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../contract/names';
import { delay, isAlive } from './processes';

export interface DevServerOptions {
  binary: string;
  dataDir: string;
  address: string;
  uiPort?: number;
  namespace?: string;
  headless?: boolean;
}

export interface DevServerHandle {
  pid: number;
  address: string;
}

export const SEARCH_ATTRIBUTE_FLAGS = [
  '--search-attribute',
  `${SEARCH_ATTRIBUTES.status}=Keyword`,
  '--search-attribute',
  `${SEARCH_ATTRIBUTES.createdAt}=Datetime`,
];

export function devServerArgs(opts: DevServerOptions): string[] {
  const { host, port } = splitAddress(opts.address);
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    path.join(opts.dataDir, 'temporal.db'),
    // SQLite's default rollback journal syncs the disk several times per commit, and the server
    // commits on every step of every session. Write-ahead logging with full sync keeps every
    // commit durable, like our own stores, at one sync per commit.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=full',
    '--ip',
    host,
    '--port',
    String(port),
    '--namespace',
    opts.namespace ?? 'default',
    '--log-level',
    'warn',
    ...SEARCH_ATTRIBUTE_FLAGS,
    // Task-queue fairness (off by default in the server): each account's sessions get their share
    // of a worker, whatever another account has queued (see contract/names fairnessKeyFor).
    '--dynamic-config-value',
    'matching.enableFairness=true',
    // One partition per task queue: fairness is kept per partition, and a single machine gains
    // nothing from spreading one queue over several (the order of a backlog would be a dice roll).
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
  ];
  if (opts.headless || !opts.uiPort) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort));
  return args;
}

/** Starts the dev server detached (it keeps running after this process exits) and waits for it. */
export async function startDevServer(opts: DevServerOptions, timeoutMs = 60_000): Promise<DevServerHandle> {
  mkdirSync(opts.dataDir, { recursive: true });
  const logFd = openSync(path.join(opts.dataDir, 'temporal-server.log'), 'a');
  const child = spawn(opts.binary, devServerArgs(opts), { detached: true, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  child.unref();
  const pid = child.pid as number;
  writeFileSync(pidFile(opts.dataDir), JSON.stringify({ pid, address: opts.address }));
  await waitForPort(opts.address, timeoutMs, () => isAlive(pid));
  return { pid, address: opts.address };
}

export function readDevServer(dataDir: string): DevServerHandle | undefined {
  try {
    const info = JSON.parse(readFileSync(pidFile(dataDir), 'utf8')) as DevServerHandle;
    return isAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A server listening at `address` that this data directory did not start (its record names no live
 * server there): another data directory's, or one started by hand. Undefined when it is ours or the
 * port is free. `dataDir` of the other one is read from its command line where the system shows it.
 */
export async function foreignServer(dataDir: string, address: string): Promise<{ pid?: number; dataDir?: string } | undefined> {
  const ours = readDevServer(dataDir);
  if (ours && ours.address === address) return undefined;
  if (!(await portOpen(address))) return undefined;
  return devServerOn(splitAddress(address).port) ?? {};
}

/** The `temporal server start-dev` process on this machine listening on `port`, from /proc (Linux; elsewhere undefined). */
function devServerOn(port: number): { pid: number; dataDir?: string } | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!args.includes('start-dev')) continue;
    const value = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
    if (Number(value('--port') ?? 7233) !== port) continue;
    const db = value('--db-filename');
    return { pid: Number(pid), ...(db ? { dataDir: path.dirname(db) } : {}) };
  }
  return undefined;
}

/** Ports after `port` that nothing listens on, with their UI port (1000 above) free too: a suggestion for moving a server. */
export async function freeServerPort(address: string): Promise<number | undefined> {
  const { host, port } = splitAddress(address);
  for (let p = port + 1; p < port + 20 && p + 1000 <= 65535; p++) {
    if (!(await portOpen(`${host}:${p}`, 300)) && !(await portOpen(`${host}:${p + 1000}`, 300))) return p;
  }
  return undefined;
}

export async function stopDevServer(dataDir: string, timeoutMs = 20_000): Promise<boolean> {
  const info = readDevServer(dataDir);
  if (!info) {
    rmSync(pidFile(dataDir), { force: true });
    return false;
  }
  process.kill(info.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(info.pid) && Date.now() < deadline) await delay(100);
  if (isAlive(info.pid)) process.kill(info.pid, 'SIGKILL');
  rmSync(pidFile(dataDir), { force: true });
  return true;
}

export function splitAddress(address: string): { host: string; port: number } {
  const idx = address.lastIndexOf(':');
  if (idx < 0) return { host: address, port: 7233 };
  return { host: address.slice(0, idx).replace(/^\[|\]$/g, ''), port: Number(address.slice(idx + 1)) };
}

export function portOpen(address: string, timeoutMs = 1_000): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function waitForPort(address: string, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portOpen(address)) return;
    if (!alive()) throw new Error(`the Temporal dev server exited during start-up (see temporal-server.log in the data directory)`);
    await delay(200);
  }
  throw new Error(`the Temporal dev server did not open ${address} within ${Math.round(timeoutMs / 1000)} s`);
}

function pidFile(dataDir: string): string {
  return path.join(dataDir, 'temporal-server.json');
}

