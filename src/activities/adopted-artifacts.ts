// Which session uses which artifact is recorded when an activity of that session stores or reuses
// one, before the bytes are written: a delete of another session that shares them, even one racing
// this session before it saved any snapshot, then leaves them in place.
import { Context } from '@temporalio/activity';
import { artifactIdOf, type ArtifactStore } from '../stores/artifacts';
import type { FetchCache } from '../stores/fetch-cache';

/** The research workflow's types (today's and the one before the rename); its id is "research-<research id>". */
const RESEARCH_WORKFLOW_TYPES = new Set(['deep-research', 'deepResearch']);

/** The research session the running activity works for; undefined outside one (CLI tools, input checks). */
export function currentResearchId(): string | undefined {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  const workflowId = info.workflowExecution?.workflowId;
  if (!RESEARCH_WORKFLOW_TYPES.has(info.workflowType ?? '') || !workflowId?.startsWith('research-')) return undefined;
  return workflowId.slice('research-'.length);
}

/** Records that the running activity's session uses these artifacts. */
export async function adoptArtifacts(refs: Pick<FetchCache, 'adopt'>, fileIds: string[]): Promise<void> {
  const researchId = currentResearchId();
  if (researchId && fileIds.length) await refs.adopt(researchId, fileIds);
}

/** The store with every put recorded as used by the running activity's session first. */
export function adoptingArtifacts(store: ArtifactStore, refs: Pick<FetchCache, 'adopt'>): ArtifactStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop !== 'put') {
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      const put: ArtifactStore['put'] = async (body, meta) => {
        await adoptArtifacts(refs, [artifactIdOf(body)]);
        return target.put(body, meta);
      };
      return put;
    },
  });
}
