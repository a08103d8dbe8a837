// `deep-research worker status | stop | adopt`: is a worker really there, which builds run, and
// how many sessions each build still runs.
import { adoptOrphanedSessions, sessionsByBuild, type SessionsByBuild } from '../client/adoption';
import type { AppConfig } from '../config/schema';
import { deploymentBuilds, type BuildSummary } from '../temporal/deployments';
import { deploymentNameOf } from '../worker/versioning';
import { activePollers, connect, readWorkerRecord, runningWorkerPid, stopBackgroundWorker } from '../runtime/local';
import { providerFingerprint } from '../runtime/workers';

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function workerCommand(action: 'status' | 'stop' | 'adopt', config: AppConfig, json?: boolean, buildId?: string): Promise<void> {
  if (action === 'adopt') return adoptCommand(config, json, buildId);
  if (action === 'stop') {
    const stopped = await stopBackgroundWorker(config, log);
    if (json) process.stdout.write(`${JSON.stringify({ stopped })}\n`);
    else if (!stopped) log('no background worker of this data directory is running');
    return;
  }
  const pid = runningWorkerPid(config);
  const record = readWorkerRecord(config);
  let pollers: number | undefined;
  let builds: BuildSummary[] | undefined;
  let sessions: SessionsByBuild | undefined;
  try {
    const client = await connect(config, { startServer: false, log });
    try {
      pollers = await activePollers(client);
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
  const stale = !!pid && !!record?.fingerprint && record.fingerprint !== providerFingerprint(config);
  const status = {
    background_worker: pid ? { pid, started_at: record?.started_at, environment_changed: stale } : null,
    live_pollers: pollers ?? null,
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
    pollers === undefined ? 'pollers: Temporal is unreachable' : `live worker processes polling "${config.temporal.task_queue}": ${pollers}`,
    ...(builds?.length ? ['builds:', ...builds.map(buildLine)] : builds ? ['builds: none has polled yet'] : []),
    ...(sessions ? [`sessions waiting for a person: ${sessions.waiting} (they go on on the current build)${sessions.unversioned ? `; ${sessions.unversioned} not yet on a build` : ''}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

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
