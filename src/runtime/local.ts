// Makes sure a Temporal server and a worker are there for the CLI: the embedded dev server unless
// TEMPORAL_ADDRESS names a cluster, and a background worker unless one already runs.
import { hostname } from 'node:os';
import { livePollerIdentities } from '../client/fleet';
import { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { portOpen } from '../local/dev-server';
import { ensureServer, requireServer } from '../local/local-server';
import { workerOwner } from '../local/worker-owner';
import { readWorkerRecord, runningWorkerPid, startingWorker, stopBackgroundWorker } from '../local/worker-records';
import { codeFingerprint, missingSecretsNote, providerFingerprint } from '../local/workers';
import { connectClient, ensureSearchAttributes } from '../temporal/connection';
import { startBackgroundWorker, type WorkerLaunch } from './background-worker';

/** How often the owner of the background worker checks that it runs. */
export const WORKER_OWNER_CHECK_SECONDS = 10;

/** `searchAttributes: false` for commands that start nothing: one round trip less (the attributes matter only to what starts). */
export async function connect(config: AppConfig, opts: { startServer: boolean; log: (line: string) => void; searchAttributes?: boolean }): Promise<ResearchClient> {
  if (opts.startServer) await ensureServer(config, opts.log);
  else await requireServer(config);
  const connection = await connectClient(config);
  const searchAttributes = opts.searchAttributes === false ? false : await ensureSearchAttributes(connection, config.temporal.namespace);
  const client = new ResearchClient(connection, config, searchAttributes);
  client.engine.workerStarting = () => !!startingWorker(config);
  return client;
}

/** Workers polling the task queue that are alive: within the last minute, and running if on this machine. */
export async function activePollers(client: ResearchClient): Promise<number> {
  return (await livePollerIdentities(client)).length;
}


/** What was last said about another process's worker, so a watchdog says it once, not every tick. */
let lastOwnerNote = '';

/**
 * Starts `deep-research worker` in the background unless a live worker already serves the task
 * queue; restarts our own background worker when the provider environment changed since it started.
 */

export async function ensureWorker(client: ResearchClient, log: (line: string) => void, launch: WorkerLaunch = {}): Promise<number | undefined> {
  const config = client.config;
  const existing = runningWorkerPid(config);
  const fingerprint = providerFingerprint(config);
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
      note(`the background worker (pid ${existing}) belongs to ${owner.command} (pid ${owner.pid}), which started it with ${codeChanged ? 'other code' : 'another environment'}; it is used as it is (stop ${owner.command} to hand the worker over)${missingSecretsNote(record, config)}`);
      return existing;
    }
    // A new build: the new worker becomes current, and research pinned to the old build moves to it.
    log(codeChanged ? 'the code changed since the background worker started: restarting it' : 'the provider environment changed since the background worker started: restarting it');
    await stopBackgroundWorker(config, () => undefined);
  } else {
    // A Temporal that is not there (stopped) gets no new worker: it would only wait for it, and the
    // owner's next check starts one once Temporal is back. A slow one is asked within a bound.
    if (!(await portOpen(config.temporal.address))) {
      note(`Temporal is not listening at ${config.temporal.address}: the background worker is started once it is back`);
      return undefined;
    }
    if ((await client.connection.withDeadline(Date.now() + 10_000, () => activePollers(client)).catch(() => 0)) > 0) return undefined;
  }
  if (!existing && ownedElsewhere) {
    note(`no background worker runs; ${owner.command} (pid ${owner.pid}) owns it and starts one within ${WORKER_OWNER_CHECK_SECONDS} s`);
    return undefined;
  }
  return startBackgroundWorker(config, log, launch);
}

/**
 * The owner's watch on its background worker (serve): every WORKER_OWNER_CHECK_SECONDS it is started
 * again if it died. A check never begins while the last one runs (one slow answer must not let two
 * checks each start a worker). Returns the stop.
 */
export function watchWorker(client: ResearchClient, log: (line: string) => void, beforeEach: () => void = () => undefined): () => void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    beforeEach();
    ensureWorker(client, log)
      .catch((err: unknown) => log(`worker check failed: ${(err as Error).message}`))
      .finally(() => (checking = false));
  }, WORKER_OWNER_CHECK_SECONDS * 1000);
  timer.unref();
  return () => clearInterval(timer);
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
