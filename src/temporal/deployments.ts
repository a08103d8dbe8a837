// Worker deployments as Temporal keeps them: which build is current, which builds still have live
// workers (from Temporal's worker heartbeats), and making a build current. Used by the worker (to
// promote itself), the client (to move research off builds that are gone) and the CLI's status.
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';

type WorkflowService = NativeConnection['workflowService'] | Connection['workflowService'];

/** How often workers tell Temporal they are alive; a build is gone after three missed beats. */
export const WORKER_HEARTBEAT_MS = 10_000;
const GONE_AFTER_MS = 3 * WORKER_HEARTBEAT_MS;
const WORKER_RUNNING = 1;
/** A poller stays listed this long after its last poll began (a long poll lasts about a minute). */
const POLL_SEEN_MS = 75_000;

export interface BuildIdentity {
  deploymentName: string;
  buildId: string;
}

/**
 * Makes this build the deployment's current version, so new sessions and sessions coming out of a
 * wait run on it. The version exists only once its worker polls, so this retries for a while.
 */
export async function promoteBuild(service: WorkflowService, namespace: string, build: BuildIdentity, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: build.deploymentName,
        buildId: build.buildId,
        identity: `deep-research@${build.buildId}`,
        // Task queues an older build polled (a search provider since removed) must not block it.
        ignoreMissingTaskQueues: true,
      });
      return;
    } catch (err) {
      if (Date.now() > until) throw new Error(`could not make build ${build.buildId} current in ${build.deploymentName}: ${(err as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export interface BuildSummary {
  buildId: string;
  current: boolean;
  /** Workers of this build that sent a heartbeat lately. */
  live_workers: number;
  /** Research sessions whose working run is pinned to this build. */
  sessions?: number;
  status?: string;
}

/**
 * Builds with a running worker. Temporal's worker heartbeats say which workers run and which shut
 * down; a worker too new to have sent its first heartbeat shows as a poller of the task queue.
 */
export async function liveBuilds(service: WorkflowService, namespace: string, deploymentName: string, now = Date.now()): Promise<Map<string, number>> {
  const live = new Map<string, number>();
  const stopped = new Set<string>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkers({ namespace, pageSize: 200, ...(nextPageToken ? { nextPageToken } : {}) });
    for (const info of page.workersInfo ?? []) {
      const hb = info.workerHeartbeat;
      const version = hb?.deploymentVersion;
      if (!hb || !version?.buildId || version.deploymentName !== deploymentName) continue;
      const beat = Number(hb.heartbeatTime?.seconds ?? 0) * 1000;
      if (hb.status !== WORKER_RUNNING) stopped.add(version.buildId);
      else if (now - beat <= GONE_AFTER_MS) live.set(version.buildId, (live.get(version.buildId) ?? 0) + 1);
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const queue = await service.describeTaskQueue({ namespace, taskQueue: { name: deploymentName, kind: 1 /* NORMAL */ }, taskQueueType: 1 /* WORKFLOW */ });
  for (const poller of queue.pollers ?? []) {
    const buildId = poller.deploymentOptions?.buildId;
    const seen = Number(poller.lastAccessTime?.seconds ?? 0) * 1000;
    if (!buildId || live.has(buildId) || stopped.has(buildId) || now - seen > POLL_SEEN_MS) continue;
    live.set(buildId, 1);
  }
  return live;
}

/** Every build the deployment knows, the current one marked, with its live workers. */
export async function deploymentBuilds(service: WorkflowService, namespace: string, deploymentName: string): Promise<BuildSummary[]> {
  const live = await liveBuilds(service, namespace, deploymentName);
  let described;
  try {
    described = await service.describeWorkerDeployment({ namespace, deploymentName });
  } catch {
    return [...live].map(([buildId, n]) => ({ buildId, current: false, live_workers: n }));
  }
  const info = described.workerDeploymentInfo;
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  return (info?.versionSummaries ?? []).map((v) => {
    const buildId = v.deploymentVersion?.buildId ?? '';
    return { buildId, current: buildId === current, live_workers: live.get(buildId) ?? 0, status: versionStatus(v.status) };
  });
}

const STATUSES = ['unspecified', 'inactive', 'current', 'ramping', 'draining', 'drained'];
const versionStatus = (status: unknown): string => STATUSES[Number(status ?? 0)] ?? String(status);
