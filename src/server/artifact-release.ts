// What a deleted session leaves behind: its references go, and of its artifacts only those that no
// other session references (running ones included) or names in a saved snapshot are removed.
import type { WorkflowHandle } from '@temporalio/client';
import { openFetchCache } from '../stores/open';
import type { ArtifactStore } from '../stores/artifacts';
import { artifactIdsIn, type SessionStore } from '../stores/sessions';
import { stateQuery } from '../contract/queries';
import type { AppConfig } from '../config/schema';

export interface ReleaseDeps {
  config: Pick<AppConfig, 'data_dir' | 'environment'>;
  artifacts: ArtifactStore;
  sessions: SessionStore;
}

/** Drops the session's references and removes the artifacts nobody uses any more; returns how many. */
export async function releaseArtifacts(deps: ReleaseDeps, researchId: string, candidates: Iterable<string>): Promise<number> {
  const cache = openFetchCache(deps.config);
  let unused: string[];
  try {
    unused = await cache.release(researchId, [...candidates]);
  } finally {
    await cache.close();
  }
  if (!unused.length) return 0;
  // Snapshots saved before references were recorded still count as uses.
  const named = await deps.sessions.artifactIdsExcept(researchId);
  const orphans = unused.filter((fileId) => !named.has(fileId));
  for (const fileId of orphans) await deps.artifacts.delete(fileId);
  return orphans.length;
}

/** How long a delete waits for a worker to answer the final live state. */
const LIVE_STATE_MS = 5_000;

/**
 * The artifacts the final live state names (pages fetched since the last snapshot). A closed
 * workflow's query is answered by a worker replaying it: with none running, or one busy with a
 * flood, the delete must not wait, and the late sweep asks again.
 */
async function liveArtifactIds(handle: WorkflowHandle): Promise<string[]> {
  const connection = handle.client.connection;
  const live = await connection.withDeadline(Date.now() + LIVE_STATE_MS, () => handle.query(stateQuery)).catch(() => undefined);
  return live ? artifactIdsIn(JSON.stringify(live)) : [];
}

/** How long after a delete writes of activities that were in flight are swept up. */
const LATE_WRITES_MS = 120_000;

export interface RemovalDeps extends ReleaseDeps {
  /** The session's workflow; none for a draft, which never ran. */
  workflow?: WorkflowHandle;
  /** Forgets the session's owner: the last step, so a failed removal can be asked again. */
  disown(): Promise<void>;
  /** Whether somebody owns the id again by the time late writes are swept up. */
  owned(): Promise<boolean>;
  /** Runs later unless the service has closed. */
  later(ms: number, run: () => void): void;
}

/** Ends a running workflow, then removes the session, its events and the artifacts no other session uses; returns how many. */
export async function removeSession(deps: RemovalDeps, researchId: string): Promise<number> {
  const mine = new Set<string>();
  const handle = deps.workflow;
  if (handle) {
    const described = await handle.describe().catch(() => undefined);
    if (described?.status.name === 'RUNNING') await handle.terminate('deleted by its owner').catch(() => undefined);
    for (const fileId of await liveArtifactIds(handle)) mine.add(fileId);
  }
  const stored = await deps.sessions.get(researchId);
  if (stored) for (const fileId of artifactIdsIn(JSON.stringify(stored))) mine.add(fileId);
  const removed = await releaseArtifacts(deps, researchId, mine);
  await deps.sessions.delete(researchId);
  await deps.disown();
  // Terminating does not stop activities already running: a model call may still stream rows, a
  // persist may still save a snapshot. Once they have given up, remove what they left.
  if (handle) {
    deps.later(LATE_WRITES_MS, () => {
      // A failure here means the service closed meanwhile.
      deps
        .owned()
        .then(async (owned) => {
          if (owned) return;
          await deps.sessions.delete(researchId);
          await releaseArtifacts(deps, researchId, await liveArtifactIds(handle));
        })
        .catch(() => undefined);
    });
  }
  return removed;
}
