// What a deleted session leaves behind: its references go, and of its artifacts only those that no
// other session references (running ones included) or names in a saved snapshot are removed.
import { openFetchCache } from '../stores/open';
import type { ArtifactStore } from '../stores/artifacts';
import type { SessionStore } from '../stores/sessions';
import type { AppConfig } from '../config/schema';

export interface ReleaseDeps {
  config: Pick<AppConfig, 'data_dir'>;
  env: NodeJS.ProcessEnv;
  artifacts: ArtifactStore;
  sessions: SessionStore;
}

/** Drops the session's references and removes the artifacts nobody uses any more; returns how many. */
export async function releaseArtifacts(deps: ReleaseDeps, researchId: string, candidates: Iterable<string>): Promise<number> {
  const cache = openFetchCache(deps.config, deps.env);
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
