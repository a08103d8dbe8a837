// `deep-research worker status | stop | adopt`: is a worker really there, which builds run, and
// how many sessions each build still runs.
import { adoptToBuild, workerFleet, type WorkerFleet } from '../client/fleet';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import type { WorkerOwner } from '../local/worker-owner';
import { localWorkers, stopBackgroundWorker } from '../local/worker-records';
import type { BuildSummary } from '../client/builds';
import { connect, WORKER_OWNER_CHECK_SECONDS } from '../runtime/local';

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function workerCommand(action: 'status' | 'stop' | 'adopt', config: AppConfig, json?: boolean, buildId?: string): Promise<void> {
  if (action !== 'stop') return askTemporal(action, config, json, buildId);
  const stopped = await stopBackgroundWorker(config, log);
  const { owner } = localWorkers(config);
  if (json) process.stdout.write(`${JSON.stringify({ stopped, ...(owner ? { owner: { command: owner.command, pid: owner.pid } } : {}) })}\n`);
  else if (!stopped) log('no background worker of this data directory is running');
  if (owner && !json) log(ownerRestartsLine(owner));
}

/** Status shows what this machine knows with Temporal away; adopt needs it. */
async function askTemporal(action: 'status' | 'adopt', config: AppConfig, json: boolean | undefined, buildId: string | undefined): Promise<void> {
  const client = await connect(config, { startServer: false, log }).catch((err: unknown) => {
    if (action === 'adopt') throw err;
    return undefined;
  });
  try {
    if (action === 'adopt') {
      const { build, moved } = await adoptToBuild(client as ResearchClient, buildId);
      const lines = moved.map((m) => `${m.research_id}: ${m.outcome === 'adopted' ? `moved from ${m.from}` : `pinned to ${m.from}, no stored snapshot`}`);
      process.stdout.write(json ? `${JSON.stringify({ build, moved })}\n` : `${lines.length ? lines.join('\n') : 'no session is pinned to a build without live workers'}\n`);
      return;
    }
    const fleet = client && (await workerFleet(client).catch(() => undefined));
    statusLines(config, localWorkers(config), fleet, json);
  } finally {
    await client?.close();
    await client?.connection.close();
  }
}

function statusLines(config: AppConfig, local: ReturnType<typeof localWorkers>, fleet: WorkerFleet | undefined, json: boolean | undefined): void {
  const { background, foreground, owner } = local;
  // Worker processes on this machine that neither record names: started from another data directory, or by hand.
  const others = fleet ? fleet.pollers.filter((who) => !local.identities.includes(who)) : [];
  const status = {
    background_worker: background ?? null,
    foreground_worker: foreground ?? null,
    live_pollers: fleet?.pollers.length ?? null,
    /** Live worker processes polling the task queue that neither record of this data directory names (pid@host). */
    other_workers: fleet ? others : null,
    /** live_pollers and each build's live_workers count worker processes (one runs a worker per task queue). */
    counted: 'processes',
    task_queue: config.temporal.task_queue,
    builds: fleet?.builds ?? null,
    sessions_waiting: fleet?.sessions.waiting ?? null,
    sessions_unversioned: fleet?.sessions.unversioned ?? null,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return;
  }
  const lines = [
    background ? `background worker: pid ${background.pid}${background.started_at ? `, since ${background.started_at}` : ''}${background.environment_changed ? ' (provider environment changed since; the next start restarts it)' : ''}` : 'background worker: not running',
    ...(foreground ? [`foreground worker: pid ${foreground.pid}${foreground.started_at ? `, since ${foreground.started_at}` : ''}`] : []),
    !fleet ? 'pollers: Temporal is unreachable' : `live worker processes polling "${config.temporal.task_queue}": ${fleet.pollers.length}${others.length ? ` (${others.length} not started from this data directory: ${others.join(', ')})` : ''}`,
    ...(owner ? [`owned by ${owner.command} (pid ${owner.pid}): it starts the background worker again within ${WORKER_OWNER_CHECK_SECONDS} s if it stops`] : []),
    ...(fleet?.builds.length ? ['builds:', ...fleet.builds.map(buildLine)] : fleet ? ['builds: none has polled yet'] : []),
    ...(fleet ? [`sessions waiting for a person: ${fleet.sessions.waiting} (they go on on the current build)${fleet.sessions.unversioned ? `; ${fleet.sessions.unversioned} not yet on a build` : ''}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** After `worker stop` or `server stop` while a serve owns the worker: it comes back, and how to stop it for good. */
export const ownerRestartsLine = (owner: WorkerOwner): string =>
  `${owner.command} (pid ${owner.pid}) owns this data directory's background worker and starts it again within ${WORKER_OWNER_CHECK_SECONDS} s (once Temporal answers); stop ${owner.command} to stop it for good`;

const buildLine = (b: BuildSummary): string =>
  `  ${b.buildId}${b.current ? ' (current)' : ''}: ${b.live_workers} live worker process${b.live_workers === 1 ? '' : 'es'}, ${b.sessions ?? 0} research run${b.sessions === 1 ? '' : 's'} pinned${b.status && !b.current ? `, ${b.status}` : ''}`;
