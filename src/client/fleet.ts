// The workers serving a task queue as Temporal sees them: which processes poll, which builds run and
// how many sessions each still runs; and moving research off builds that are gone, by hand.
import { livePollers } from '../local/workers';
import { deploymentNameOf } from '../temporal/deployments';
import { deploymentBuilds, liveBuilds, type BuildSummary } from './builds';
import { adoptOrphanedSessions, sessionsByBuild, type Adoption, type SessionsByBuild } from './adoption';
import type { ResearchClient } from './research-client';

/** Live worker processes polling the task queue (pid@host each): within the last minute, and running if on this machine. */
export async function livePollerIdentities(client: Pick<ResearchClient, 'connection' | 'config'>): Promise<string[]> {
  const res = await client.connection.workflowService.describeTaskQueue({
    namespace: client.config.temporal.namespace,
    taskQueue: { name: client.config.temporal.task_queue, kind: 1 /* NORMAL */ },
    taskQueueType: 1 /* WORKFLOW */,
  });
  return [...new Set(livePollers(res.pollers ?? []).map((p) => p.identity ?? '?'))];
}

export interface WorkerFleet {
  pollers: string[];
  /** Every build the deployment knows, each with the sessions pinned to it. */
  builds: BuildSummary[];
  sessions: SessionsByBuild;
}

export async function workerFleet(client: ResearchClient): Promise<WorkerFleet> {
  const sessions = await sessionsByBuild(client);
  const pollers = await livePollerIdentities(client);
  const builds = await deploymentBuilds(client.connection.workflowService, client.config.temporal.namespace, deploymentNameOf(client.config));
  for (const b of builds) b.sessions = sessions.pinned[b.buildId] ?? 0;
  return { pollers, builds, sessions };
}

/** Research pinned to builds with no live worker moves to `buildId`, or to the current build. */
export async function adoptToBuild(client: ResearchClient, buildId?: string): Promise<{ build: string; moved: Adoption[] }> {
  const deploymentName = deploymentNameOf(client.config);
  const service = client.connection.workflowService;
  const live = await liveBuilds(service, client.config.temporal.namespace, deploymentName);
  const target = buildId ?? (await deploymentBuilds(service, client.config.temporal.namespace, deploymentName, live)).find((b) => b.current)?.buildId;
  if (!target) throw new Error('no current build: start a worker first (or name a build with --build)');
  return { build: target, moved: await adoptOrphanedSessions(client, { deploymentName, buildId: target }, live) };
}
