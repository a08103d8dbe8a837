// What every command that talks to Temporal shares: the config, a connection (starting the local
// server and a background worker for commands that start research), and one line of output.
import { ResearchClient } from '../client/research-client';
import { loadConfig } from './config';
import type { AppConfig } from '../config/schema';
import { flushTracing, startTracing } from '../telemetry/tracing';
import { portOpen } from '../local/dev-server';
import { ensureServer } from '../local/local-server';
import { workerOwner } from '../local/worker-owner';
import { runningWorkerPid, usesEmbeddedServer } from '../local/worker-records';
import { startBackgroundWorker } from '../runtime/background-worker';
import { connect, ensureWorker } from '../runtime/local';
import { Progress } from './progress';
import { withSnakeCaseIds } from './format';

export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Common {
  json?: boolean;
}

export function out(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(withSnakeCaseIds(value))}\n` : `${text}\n`);
}

export async function withClient<T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Refuse to start research that could only fail later for want of a model.
  if (opts.startRuntime) (require('../providers/registry') as typeof import('../providers/registry')).checkModelConfigured(config);
  startTracing('deep-research-cli', config.environment.telemetry);
  const client = opts.startRuntime ? await startRuntime(config) : await connect(config, { startServer: false, searchAttributes: false, log });
  try {
    return await fn(client, config);
  } finally {
    await client.close();
    await client.connection.close();
    await flushTracing().catch(() => undefined);
  }
}

/**
 * The local Temporal server and a worker, for commands that start research. On a cold start they
 * start side by side: the background worker first (it loads its code and workflow bundle while the
 * server starts, and waits for it), and the wait for the server ticks at a terminal.
 */
async function startRuntime(config: AppConfig): Promise<ResearchClient> {
  if (usesEmbeddedServer(config) && !(await portOpen(config.temporal.address))) {
    // A serve that owns the data directory's worker starts it itself (src/local/worker-owner.ts).
    if (!runningWorkerPid(config) && !workerOwner(config.data_dir, config.temporal.task_queue)) startBackgroundWorker(config, log);
    const progress = new Progress();
    await ensureServer(config, log, (what, work) => progress.step(what, work));
  }
  const client = await connect(config, { startServer: true, log });
  await ensureWorker(client, log);
  return client;
}
