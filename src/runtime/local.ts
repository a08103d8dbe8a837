// Makes sure a Temporal server and a worker are there for the CLI: the embedded dev server unless
// TEMPORAL_ADDRESS names a cluster, and a background worker unless one already runs.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { ensureTemporalBinary } from '../temporal/binary';
import { connectClient, ensureSearchAttributes } from '../temporal/connection';
import { isAlive, portOpen, startDevServer } from '../temporal/dev-server';
import { workerProcessEnv } from '../worker/cache-size';
import { codeFingerprint, deliverySecretsIn, livePollers, missingSecretsNote, parseWorkerRecord, providerFingerprint, type WorkerRecord } from './workers';
import { workerOwner } from './worker-owner';
import { hostname } from 'node:os';

/** How often the owner of the background worker checks that it runs. */
export const WORKER_OWNER_CHECK_SECONDS = 10;

export function usesEmbeddedServer(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.TEMPORAL_ADDRESS;
}

/**
 * How a step a person waits for is shown: the CLI keeps one line ticking at a terminal; by default
 * the step is logged when it starts.
 */
export type Step = <T>(what: string, work: () => Promise<T>) => Promise<T>;

export async function ensureServer(config: AppConfig, log: (line: string) => void, step: Step = async (what, work) => (log(what), work())): Promise<void> {
  if (await portOpen(config.temporal.address)) return;
  if (!usesEmbeddedServer()) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address} (TEMPORAL_ADDRESS)`);
  }
  const binary = ensureTemporalBinary(config.temporal.cli_version, log);
  const since = Date.now();
  await step(`starting the local Temporal server on ${config.temporal.address} (data in ${config.data_dir})`, () =>
    startDevServer({ binary, dataDir: config.data_dir, address: config.temporal.address, uiPort: config.temporal.ui_port }),
  );
  log(`the local Temporal server is up (${((Date.now() - since) / 1000).toFixed(1)} s); Temporal UI: http://127.0.0.1:${config.temporal.ui_port}`);
}

/** `searchAttributes: false` for commands that start nothing: one round trip less (the attributes matter only to what starts). */
export async function connect(config: AppConfig, opts: { startServer: boolean; log: (line: string) => void; searchAttributes?: boolean }): Promise<ResearchClient> {
  if (opts.startServer) await ensureServer(config, opts.log);
  else if (!(await portOpen(config.temporal.address))) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address}; run "deep-research server start" or set TEMPORAL_ADDRESS`);
  }
  const connection = await connectClient(config);
  const searchAttributes = opts.searchAttributes === false ? false : await ensureSearchAttributes(connection, config.temporal.namespace);
  return new ResearchClient(connection, config, searchAttributes);
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

/** Workers polling the task queue that are alive: within the last minute, and running if on this machine. */
export async function activePollers(client: ResearchClient): Promise<number> {
  const res = await client.connection.workflowService.describeTaskQueue({
    namespace: client.config.temporal.namespace,
    taskQueue: { name: client.config.temporal.task_queue, kind: 1 /* NORMAL */ },
    taskQueueType: 1 /* WORKFLOW */,
  });
  return livePollers(res.pollers ?? []).length;
}

/** Stops the background worker this data directory started; true when there was one. */
export async function stopBackgroundWorker(config: AppConfig, log: (line: string) => void): Promise<boolean> {
  const pid = runningWorkerPid(config);
  if (!pid) return false;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  log(`stopped the background worker (pid ${pid})`);
  return true;
}

/**
 * Starts `deep-research worker` in the background unless a live worker already serves the task
 * queue; restarts our own background worker when the provider environment changed since it started.
 */
export interface WorkerLaunch {
  /** The environment the worker gets (and is fingerprinted by); this process's by default. */
  env?: NodeJS.ProcessEnv;
  /** The command that runs a worker; this CLI's `worker` by default. */
  command?: string[];
}

/** What was last said about another process's worker, so a watchdog says it once, not every tick. */
let lastOwnerNote = '';

export async function ensureWorker(client: ResearchClient, log: (line: string) => void, launch: WorkerLaunch = {}): Promise<number | undefined> {
  const config = client.config;
  const env = launch.env ?? process.env;
  const existing = runningWorkerPid(config);
  const fingerprint = providerFingerprint(env);
  const code = codeFingerprint();
  // A live serve that holds the data directory's lock owns the worker: only it starts or restarts it.
  const owner = workerOwner(config.data_dir, config.temporal.task_queue);
  const ownedElsewhere = !!owner && !(owner.pid === process.pid && owner.host === hostname());
  const note = (line: string) => {
    if (line !== lastOwnerNote) log(line);
    lastOwnerNote = line;
  };
  if (existing) {
    const record = readWorkerRecord(config);
    const envChanged = !!record?.fingerprint && record.fingerprint !== fingerprint;
    const codeChanged = !!record?.code && record.code !== code;
    if (!envChanged && !codeChanged) return existing;
    if (ownedElsewhere) {
      note(`the background worker (pid ${existing}) belongs to ${owner.command} (pid ${owner.pid}), which started it with ${codeChanged ? 'other code' : 'another environment'}; it is used as it is (stop ${owner.command} to hand the worker over)${missingSecretsNote(record, env)}`);
      return existing;
    }
    // A new build: the new worker becomes current, and research pinned to the old build moves to it.
    log(codeChanged ? 'the code changed since the background worker started: restarting it' : 'the provider environment changed since the background worker started: restarting it');
    await stopBackgroundWorker(config, () => undefined);
  } else if ((await activePollers(client).catch(() => 0)) > 0) return undefined;
  else if (ownedElsewhere) {
    note(`no background worker runs; ${owner.command} (pid ${owner.pid}) owns it and starts one within ${WORKER_OWNER_CHECK_SECONDS} s`);
    return undefined;
  }
  return startBackgroundWorker(config, log, launch);
}

/**
 * Starts `deep-research worker --background` and records it. It needs no server to start: on a cold
 * start the CLI starts it beside the local Temporal server, and it loads its code meanwhile.
 */
export function startBackgroundWorker(config: AppConfig, log: (line: string) => void, launch: WorkerLaunch = {}): number {
  const env = launch.env ?? process.env;
  mkdirSync(config.data_dir, { recursive: true });
  const logFd = openSync(path.join(config.data_dir, 'worker.log'), 'a');
  const [command, ...args] = launch.command ?? [process.execPath, ...process.execArgv, process.argv[1], 'worker', '--background'];
  const child = spawn(command, args, { detached: true, stdio: ['ignore', logFd, logFd], env: workerProcessEnv(env, config.temporal) });
  closeSync(logFd);
  child.unref();
  writeWorkerRecord(config, { pid: child.pid as number, fingerprint: providerFingerprint(env), code: codeFingerprint(), started_at: new Date().toISOString(), secrets: deliverySecretsIn(env) });
  log(`started a background worker (pid ${child.pid}, log ${path.join(config.data_dir, 'worker.log')})`);
  return child.pid as number;
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
  writeWorkerRecord(config, { pid: process.pid, fingerprint: providerFingerprint(process.env), code: codeFingerprint(), started_at: new Date().toISOString(), secrets: deliverySecretsIn(process.env) }, kind);
}

export const waitingForWorkerLine = (client: ResearchClient): string =>
  `waiting for a worker: none is polling task queue "${client.config.temporal.task_queue}" (start one with "deep-research worker")`;

/** For commands that return at once: one line if no worker polls within a few seconds (and ours is not starting). */
export async function noteIfNoWorker(client: ResearchClient, log: (line: string) => void, withinMs = 6_000): Promise<boolean> {
  const since = Date.now();
  for (;;) {
    if ((await activePollers(client).catch(() => 1)) > 0 || startingWorker(client.config)) return false;
    if (Date.now() - since >= withinMs) {
      log(waitingForWorkerLine(client));
      return true;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
