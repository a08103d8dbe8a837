// `deep-research worker status | stop | adopt`: is a worker really there, which builds run, and
// how many sessions each build still runs.
import { adoptOrphanedSessions, sessionsByBuild, type SessionsByBuild } from '../client/adoption';
import type { AppConfig } from '../config/schema';
import { deploymentBuilds, type BuildSummary } from '../temporal/deployments';
import { deploymentNameOf } from '../worker/versioning';
import { connect, livePollerIdentities, readWorkerRecord, runningWorkerPid, stopBackgroundWorker, WORKER_OWNER_CHECK_SECONDS } from '../runtime/local';
import { workerOwner, type WorkerOwner } from '../runtime/worker-owner';
import { isAlive } from '../temporal/dev-server';
import { hostname } from 'node:os';
import { providerFingerprint } from '../runtime/workers';

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function workerCommand(action: 'status' | 'stop' | 'adopt', config: AppConfig, json?: boolean, buildId?: string): Promise<void> {
  if (action === 'adopt') return adoptCommand(config, json, buildId);
  if (action === 'stop') {
    const stopped = await stopBackgroundWorker(config, log);
    const owner = workerOwner(config.data_dir, config.temporal.task_queue);
    if (json) process.stdout.write(`${JSON.stringify({ stopped, ...(owner ? { owner: { command: owner.command, pid: owner.pid } } : {}) })}\n`);
    else if (!stopped) log('no background worker of this data directory is running');
    if (owner && !json) log(ownerRestartsLine(owner));
    return;
  }
  const pid = runningWorkerPid(config);
  const record = readWorkerRecord(config);
  const foreground = readWorkerRecord(config, 'foreground');
  const foregroundPid = foreground && isAlive(foreground.pid) ? foreground.pid : undefined;
  let pollers: number | undefined;
  let others: string[] = [];
  let builds: BuildSummary[] | undefined;
  let sessions: SessionsByBuild | undefined;
  try {
    const client = await connect(config, { startServer: false, log });
    try {
      const live = await livePollerIdentities(client);
      pollers = live.length;
      // Worker processes on this machine that neither record names: started from another data directory, or by hand.
      const ours = new Set([pid, foregroundPid].filter(Boolean).map((p) => `${p}@${hostname()}`));
      others = live.filter((who) => !ours.has(who));
      builds = await deploymentBuilds(client.connection.workflowService, config.temporal.namespace, deploymentNameOf(config));
      sessions = await sessionsByBuild(client);
      for (const b of builds) b.sessions = sessions.pinned[b.buildId] ?? 0;
    } finally {
      await client.close();
      await client.connection.close();
    }
  } catch {
    pollers = undefined;
  }
  const owner = workerOwner(config.data_dir, config.temporal.task_queue);
  const stale = !!pid && !!record?.fingerprint && record.fingerprint !== providerFingerprint(config);
  const status = {
    background_worker: pid ? { pid, started_at: record?.started_at, environment_changed: stale } : null,
    foreground_worker: foregroundPid ? { pid: foregroundPid, started_at: foreground?.started_at } : null,
    live_pollers: pollers ?? null,
    /** Live worker processes polling the task queue that neither record of this data directory names (pid@host). */
    other_workers: pollers === undefined ? null : others,
    /** live_pollers and each build's live_workers count worker processes (one runs a worker per task queue). */
    counted: 'processes',
    task_queue: config.temporal.task_queue,
    builds: builds ?? null,
    sessions_waiting: sessions?.waiting ?? null,
    sessions_unversioned: sessions?.unversioned ?? null,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return;
  }
  const lines = [
    pid ? `background worker: pid ${pid}${record?.started_at ? `, since ${record.started_at}` : ''}${stale ? ' (provider environment changed since; the next start restarts it)' : ''}` : 'background worker: not running',
    ...(foregroundPid ? [`foreground worker: pid ${foregroundPid}${foreground?.started_at ? `, since ${foreground.started_at}` : ''}`] : []),
    pollers === undefined ? 'pollers: Temporal is unreachable' : `live worker processes polling "${config.temporal.task_queue}": ${pollers}${others.length ? ` (${others.length} not started from this data directory: ${others.join(', ')})` : ''}`,
    ...(owner ? [`owned by ${owner.command} (pid ${owner.pid}): it starts the background worker again within ${WORKER_OWNER_CHECK_SECONDS} s if it stops`] : []),
    ...(builds?.length ? ['builds:', ...builds.map(buildLine)] : builds ? ['builds: none has polled yet'] : []),
    ...(sessions ? [`sessions waiting for a person: ${sessions.waiting} (they go on on the current build)${sessions.unversioned ? `; ${sessions.unversioned} not yet on a build` : ''}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** After `worker stop` or `server stop` while a serve owns the worker: it comes back, and how to stop it for good. */
export const ownerRestartsLine = (owner: WorkerOwner): string =>
  `${owner.command} (pid ${owner.pid}) owns this data directory's background worker and starts it again within ${WORKER_OWNER_CHECK_SECONDS} s (once Temporal answers); stop ${owner.command} to stop it for good`;

const buildLine = (b: BuildSummary): string =>
  `  ${b.buildId}${b.current ? ' (current)' : ''}: ${b.live_workers} live worker process${b.live_workers === 1 ? '' : 'es'}, ${b.sessions ?? 0} research run${b.sessions === 1 ? '' : 's'} pinned${b.status && !b.current ? `, ${b.status}` : ''}`;

/** Moves research pinned to builds with no live worker onto the current build (a worker does this by itself every minute). */
async function adoptCommand(config: AppConfig, json: boolean | undefined, buildId: string | undefined): Promise<void> {
  const client = await connect(config, { startServer: false, log });
  try {
    const builds = await deploymentBuilds(client.connection.workflowService, config.temporal.namespace, deploymentNameOf(config));
    const target = buildId ?? builds.find((b) => b.current)?.buildId;
    if (!target) throw new Error('no current build: start a worker first (or name a build with --build)');
    const moved = await adoptOrphanedSessions(client, { deploymentName: deploymentNameOf(config), buildId: target });
    if (json) process.stdout.write(`${JSON.stringify({ build: target, moved })}\n`);
    else process.stdout.write(`${moved.length ? moved.map((m) => `${m.research_id}: ${m.outcome === 'adopted' ? `moved from ${m.from}` : `pinned to ${m.from}, no stored snapshot`}`).join('\n') : 'no session is pinned to a build without live workers'}\n`);
  } finally {
    await client.close();
    await client.connection.close();
  }
}
