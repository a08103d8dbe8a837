// Makes sure a Temporal server and a worker are there for the CLI: the embedded dev server unless
// TEMPORAL_ADDRESS names a cluster, and a background worker unless one already runs.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { ensureTemporalBinary } from '../temporal/binary';
import { connectClient, ensureSearchAttributes } from '../temporal/connection';
import { isAlive, portOpen, readDevServer, startDevServer } from '../temporal/dev-server';

export function usesEmbeddedServer(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.TEMPORAL_ADDRESS;
}

export async function ensureServer(config: AppConfig, log: (line: string) => void): Promise<void> {
  if (await portOpen(config.temporal.address)) return;
  if (!usesEmbeddedServer()) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address} (TEMPORAL_ADDRESS)`);
  }
  const binary = ensureTemporalBinary(config.temporal.cli_version, log);
  log(`starting the local Temporal server on ${config.temporal.address} (data in ${config.data_dir})`);
  await startDevServer({ binary, dataDir: config.data_dir, address: config.temporal.address, uiPort: config.temporal.ui_port });
  log(`Temporal UI: http://127.0.0.1:${config.temporal.ui_port}`);
}

export async function connect(config: AppConfig, opts: { startServer: boolean; log: (line: string) => void }): Promise<ResearchClient> {
  if (opts.startServer) await ensureServer(config, opts.log);
  else if (!(await portOpen(config.temporal.address))) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address}; run "deep-research server start" or set TEMPORAL_ADDRESS`);
  }
  const connection = await connectClient(config);
  const searchAttributes = await ensureSearchAttributes(connection, config.temporal.namespace);
  return new ResearchClient(connection, config, searchAttributes);
}

function workerPidFile(config: AppConfig): string {
  return path.join(config.data_dir, `worker-${config.temporal.task_queue}.pid`);
}

export function runningWorkerPid(config: AppConfig): number | undefined {
  try {
    const pid = Number(readFileSync(workerPidFile(config), 'utf8'));
    return pid && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Workers that polled the task queue within the last minute, anywhere. */
export async function activePollers(client: ResearchClient): Promise<number> {
  const res = await client.connection.workflowService.describeTaskQueue({
    namespace: client.config.temporal.namespace,
    taskQueue: { name: client.config.temporal.task_queue, kind: 1 /* NORMAL */ },
    taskQueueType: 1 /* WORKFLOW */,
  });
  const cutoff = Date.now() - 60_000;
  return (res.pollers ?? []).filter((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= cutoff).length;
}

/** Starts `deep-research worker` in the background unless a worker already serves the task queue. */
export async function ensureWorker(client: ResearchClient, log: (line: string) => void): Promise<number | undefined> {
  const config = client.config;
  const existing = runningWorkerPid(config);
  if (existing) return existing;
  if ((await activePollers(client).catch(() => 0)) > 0) return undefined;
  mkdirSync(config.data_dir, { recursive: true });
  const logFd = openSync(path.join(config.data_dir, 'worker.log'), 'a');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], 'worker'], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: process.env,
  });
  closeSync(logFd);
  child.unref();
  writeFileSync(workerPidFile(config), String(child.pid));
  log(`started a background worker (pid ${child.pid}, log ${path.join(config.data_dir, 'worker.log')})`);
  return child.pid as number;
}

export function recordWorkerPid(config: AppConfig): void {
  mkdirSync(config.data_dir, { recursive: true });
  writeFileSync(workerPidFile(config), String(process.pid));
}
