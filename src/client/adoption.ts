// Sessions whose build is gone. A research run is pinned to the build it started on; when no worker
// of that build is left (a local upgrade, an old build drained and stopped), the session goes on
// from its last snapshot on the current build, the way a failed session is retried. Waiting runs
// need none of this: they move to the current build by themselves when their answer comes.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { WORKFLOW_TYPE } from '../contract/names';
import type { ResearchState } from '../domain/types';
import type { SessionStore } from '../stores/sessions';
import type { BuildIdentity } from '../temporal/deployments';
import { liveBuilds } from './builds';
import { continuationState } from './session-ops';

/**
 * What adoption asks of a client (a ResearchClient is one): Temporal's workflows on its namespace and
 * task queue, a session's last snapshot, and a new run of a session from a state.
 */
export interface AdoptingClient {
  readonly client: Client;
  readonly config: { temporal: { namespace: string; task_queue: string } };
  sessions(): Pick<SessionStore, 'get'>;
  startRun(state: ResearchState, policy: 'REPLACE_RUNNING'): Promise<void>;
}

export interface Adoption {
  research_id: string;
  /** The build it was pinned to ("unversioned" for a run started before worker versioning). */
  from: string;
  outcome: 'adopted' | 'no_snapshot';
}

const RESEARCH_TYPES = [WORKFLOW_TYPE, 'deepResearch'];
/** A run with no version yet may simply not have had its first task: give it this long. */
const UNVERSIONED_GRACE_MS = 60_000;

/** A running research run of this task queue and the build it runs on. */
interface RunningResearch {
  workflowId: string;
  runId: string;
  /** Auto-upgrading: waiting for a person, it goes on on whichever build is current when answered. */
  waiting: boolean;
  pinnedTo?: string;
  startTime: Date;
}

async function runningResearch(client: Pick<AdoptingClient, 'client' | 'config'>): Promise<RunningResearch[]> {
  const query = `TaskQueue = '${client.config.temporal.task_queue}' AND ExecutionStatus = 'Running' AND WorkflowType IN (${RESEARCH_TYPES.map((t) => `'${t}'`).join(', ')})`;
  const runs: RunningResearch[] = [];
  for await (const run of client.client.workflow.list({ query })) {
    const described = await client.client.workflow.getHandle(run.workflowId, run.runId).describe();
    const versioning = described.raw.workflowExecutionInfo?.versioningInfo;
    const behavior = String(versioning?.behavior ?? '');
    const waiting = behavior === 'VERSIONING_BEHAVIOR_AUTO_UPGRADE' || behavior === '2';
    runs.push({ workflowId: run.workflowId, runId: run.runId, waiting, pinnedTo: versioning?.deploymentVersion?.buildId ?? undefined, startTime: described.startTime });
  }
  return runs;
}

/**
 * Running research sessions of this task queue pinned to a build with no live worker (`live`: live
 * worker processes per build, as liveBuilds counts them), moved to `build`.
 */
export async function adoptOrphanedSessions(client: AdoptingClient, build: BuildIdentity, live: ReadonlyMap<string, number>, now = Date.now()): Promise<Adoption[]> {
  const adopted: Adoption[] = [];
  for (const run of await runningResearch(client)) {
    const { pinnedTo } = run;
    if (run.waiting || (pinnedTo && (live.has(pinnedTo) || pinnedTo === build.buildId))) continue;
    if (!pinnedTo && now - run.startTime.getTime() < UNVERSIONED_GRACE_MS) continue;
    const researchId = run.workflowId.replace(/^research-/, '');
    adopted.push({ research_id: researchId, from: pinnedTo ?? 'unversioned', outcome: await adopt(client, researchId, pinnedTo, build) });
  }
  return adopted;
}

async function adopt(client: AdoptingClient, researchId: string, from: string | undefined, to: BuildIdentity): Promise<Adoption['outcome']> {
  const snapshot = await client.sessions().get(researchId);
  if (!snapshot) return 'no_snapshot';
  const state = continuationState(snapshot);
  const message = `moved from build ${from ?? 'unversioned'} to ${to.buildId}: its build has no live worker; going on from the last snapshot`;
  state.events = [{ seq: state.persisted_seq + 1, time: new Date().toISOString(), type: 'Status', data: { level: 'warning', kind: 'build_gone', from: from ?? 'unversioned', to: to.buildId, message } }];
  // The new run replaces the one stuck on the gone build; its work since the snapshot is redone.
  await client.startRun(state, 'REPLACE_RUNNING');
  return 'adopted';
}

export interface SessionsByBuild {
  /** Working runs pinned to each build. */
  pinned: Record<string, number>;
  /** Sessions waiting for a person (they run on whichever build is current when answered). */
  waiting: number;
  /** Runs with no build yet (just started) or from before worker versioning. */
  unversioned: number;
}

/** How many running sessions each build still runs. */
export async function sessionsByBuild(client: Pick<AdoptingClient, 'client' | 'config'>): Promise<SessionsByBuild> {
  const out: SessionsByBuild = { pinned: {}, waiting: 0, unversioned: 0 };
  for (const run of await runningResearch(client)) {
    if (run.waiting) out.waiting += 1;
    else if (run.pinnedTo) out.pinned[run.pinnedTo] = (out.pinned[run.pinnedTo] ?? 0) + 1;
    else out.unversioned += 1;
  }
  return out;
}

/**
 * Research pinned to a build with no live worker left moves to this one: at start, then every
 * `seconds` (DEEP_RESEARCH_ADOPT_EVERY_SECONDS, 60; 0: only at start). The timer, to clear at stop.
 */
export function adoptEvery(research: AdoptingClient, build: BuildIdentity, seconds: number, logger: Logger): NodeJS.Timeout | undefined {
  const sweep = async () => {
    try {
      const live = await liveBuilds(research.client.workflowService, research.config.temporal.namespace, build.deploymentName);
      for (const a of await adoptOrphanedSessions(research, build, live)) {
        if (a.outcome === 'adopted') logger.warn({ research_id: a.research_id, from: a.from, to: build.buildId }, `research ${a.research_id} moved from build ${a.from} to ${build.buildId}`);
        else logger.warn({ research_id: a.research_id, from: a.from }, `research ${a.research_id} is pinned to build ${a.from}, which has no live worker, and has no stored snapshot to go on from`);
      }
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not look for sessions of builds that are gone');
    }
  };
  void sweep();
  if (!(seconds > 0)) return undefined;
  const timer = setInterval(() => void sweep(), seconds * 1000);
  timer.unref();
  return timer;
}
