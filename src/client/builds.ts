// The builds of a task queue's deployment as Temporal keeps them: which is current and how many live
// worker processes each has (from Temporal's worker heartbeats and the queue's pollers). Read by the
// client, to move research off builds that are gone, to tell whether a worker is there, and by status.
import { hostname } from 'node:os';
import { isAlive } from '../local/processes';
import { WORKER_HEARTBEAT_MS, type WorkflowService } from '../temporal/deployments';

/** A build is gone after three missed beats. */
const GONE_AFTER_MS = 3 * WORKER_HEARTBEAT_MS;
const WORKER_RUNNING = 1;
/** A poller stays listed this long after its last poll began (a long poll lasts about a minute). */
const POLL_SEEN_MS = 75_000;

export interface BuildSummary {
  buildId: string;
  current: boolean;
  /** Worker processes of this build that heartbeat or poll (one process runs a worker per task queue; it counts once). */
  live_workers: number;
  /** Research sessions whose working run is pinned to this build. */
  sessions?: number;
  status?: string;
}

/**
 * Live worker processes per build. A worker process runs one Temporal worker per task queue it
 * serves (the workflow queue, each search provider's, …), and each sends its own heartbeat, so
 * heartbeats are counted by the process that sent them (its identity, pid@host), never one by one.
 * A process too new to have sent its first heartbeat shows as a poller of the workflow queue; one
 * on this machine whose process is gone, or that said it shut down, does not count.
 */
export async function liveBuilds(service: WorkflowService, namespace: string, deploymentName: string, now = Date.now()): Promise<Map<string, number>> {
  const processes = new Map<string, Set<string>>();
  const running = new Set<string>();
  const stopped = new Set<string>();
  const count = (buildId: string, who: string) => processes.set(buildId, (processes.get(buildId) ?? new Set()).add(who));
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkers({ namespace, pageSize: 200, ...(nextPageToken ? { nextPageToken } : {}) });
    for (const info of page.workersInfo ?? []) {
      const hb = info.workerHeartbeat;
      const version = hb?.deploymentVersion;
      if (!hb || !version?.buildId || version.deploymentName !== deploymentName) continue;
      const who = processOf(hb.workerIdentity, hb.hostInfo);
      const beat = Number(hb.heartbeatTime?.seconds ?? 0) * 1000;
      if (hb.status !== WORKER_RUNNING) stopped.add(who);
      else if (now - beat <= GONE_AFTER_MS && stillRuns(who)) {
        running.add(who);
        count(version.buildId, who);
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const queue = await service.describeTaskQueue({ namespace, taskQueue: { name: deploymentName, kind: 1 /* NORMAL */ }, taskQueueType: 1 /* WORKFLOW */ });
  for (const poller of queue.pollers ?? []) {
    const buildId = poller.deploymentOptions?.buildId;
    const who = poller.identity ?? '';
    const seen = Number(poller.lastAccessTime?.seconds ?? 0) * 1000;
    if (!buildId || !who || now - seen > POLL_SEEN_MS || (stopped.has(who) && !running.has(who)) || !stillRuns(who)) continue;
    count(buildId, who);
  }
  return new Map([...processes].map(([buildId, who]) => [buildId, who.size]));
}

/** The process a heartbeat came from: its identity (pid@host by default), else its host and pid. */
function processOf(identity: string | null | undefined, host: { hostName?: string | null; processId?: string | null } | null | undefined): string {
  return identity || `${host?.processId ?? '?'}@${host?.hostName ?? '?'}`;
}

/** A process on this machine counts while it runs; one elsewhere, while it heartbeats or polls. */
function stillRuns(who: string): boolean {
  const match = /^(\d+)@(.+)$/.exec(who);
  return !match || match[2] !== hostname() || isAlive(Number(match[1]));
}

/** Every build the deployment knows, the current one marked, with its live workers. */
export async function deploymentBuilds(service: WorkflowService, namespace: string, deploymentName: string, known?: ReadonlyMap<string, number>): Promise<BuildSummary[]> {
  const live = known ?? (await liveBuilds(service, namespace, deploymentName));
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
