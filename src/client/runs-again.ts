// A session that has ended runs again: retried or resumed as the same session, or enhanced into a
// new version. What the new run starts from is read as every read is (reads.ts), so no worker is
// needed to refuse what cannot run again, and a run that has just ended is waited for, not refused.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { withOverrides, type SettingsOverrides } from '../config/session-settings';
import { describe } from '../domain/position';
import type { InputContextRef, ResearchSnapshot, ResearchState, ResearchStatus } from '../domain/types';
import type { SessionStore } from '../stores/sessions';
import { ResearchError } from './errors';
import { readState, type ReadsClient } from './reads';
import { continuationState, enhancedState, ENHANCEABLE, type EnhanceOptions } from './session-ops';

interface RunsAgainClient extends ReadsClient {
  sessions(): SessionStore;
  handle(id: string): { describe(): Promise<{ status: { name: string } }> };
  startRun(state: ResearchState, policy: 'ALLOW_DUPLICATE' | 'REJECT_DUPLICATE'): Promise<void>;
}

/** How long a run the store already calls ended may take to close before a new one is refused. */
const CLOSING_MS = 10_000;

/** A new run of the same session from where it stopped, if its status is one of `allowed`. */
export async function runAgain(client: RunsAgainClient, id: string, allowed: readonly ResearchStatus[], rule: string, overrides?: SettingsOverrides): Promise<{ researchId: string; status: ResearchStatus }> {
  const snapshot = await startingPoint(client, id);
  if (!allowed.includes(snapshot.status)) throw new ResearchError(`research ${id} is ${snapshot.status}; ${rule}`);
  const state = continuationState(snapshot, overrides && withOverrides(snapshot.settings, overrides));
  // The store's copy stops saying the session has ended before the new run starts: `status` trusts
  // an ended copy without asking Temporal (the new run's first write replaces this one).
  const stored = await client.sessions().get(id);
  if (stored) await client.sessions().save({ ...stored, status: describe(state.position).status, reason: undefined, updated_at: new Date().toISOString() }, []);
  try {
    // The last save comes a moment before Temporal closes the run: a run still open is waited for.
    await client.startRun(state, 'ALLOW_DUPLICATE').catch(async (err: unknown) => {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || !(await closes(client, id))) throw err;
      await client.startRun(state, 'ALLOW_DUPLICATE');
    });
  } catch (err) {
    if (stored) await client.sessions().save(stored, []);
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new ResearchError(`research ${id} is still finishing; try again in a moment`);
    throw err;
  }
  return { researchId: id, status: 'running' };
}

/** A completed session researched further into a new version (`-v2`, `-v3`, …); the old one stays. */
export async function enhance(
  client: RunsAgainClient,
  id: string,
  opts: EnhanceOptions,
  storeContexts: () => Promise<InputContextRef[]>,
): Promise<{ researchId: string; status: ResearchStatus; parentId: string }> {
  const snapshot = await startingPoint(client, id);
  if (!ENHANCEABLE.includes(snapshot.status)) throw new ResearchError(`research ${id} is ${snapshot.status}; only a completed session can be enhanced`);
  const settings = withOverrides(snapshot.settings, opts.model ? { model: opts.model } : {});
  const contexts = await storeContexts();
  for (let version = 2; version < 100; version++) {
    const researchId = opts.researchId ?? `${id.replace(/-v\d+$/, '').slice(0, 56)}-v${version}`;
    const state = enhancedState(snapshot, researchId, settings, opts, new Date().toISOString(), contexts);
    try {
      await client.startRun(state, 'REJECT_DUPLICATE');
      return { researchId, status: 'running', parentId: id };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || opts.researchId) {
        throw err instanceof WorkflowExecutionAlreadyStartedError ? new ResearchError(`research ${researchId} already exists`) : err;
      }
    }
  }
  throw new ResearchError(`research ${id} has too many versions`);
}

/**
 * The snapshot a new run starts from, read as reads are: an ended session's from the store, a
 * running one's from its workflow only while a worker is there to answer (else the store's copy,
 * which says it is running: refused at once instead of a query that waits for no worker).
 */
async function startingPoint(client: RunsAgainClient, id: string): Promise<ResearchSnapshot> {
  return (await readState(client, id)).state;
}

/** Whether the session's open run closes within CLOSING_MS (Temporal's describe: no worker needed). */
async function closes(client: RunsAgainClient, id: string): Promise<boolean> {
  for (const until = Date.now() + CLOSING_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    if ((await client.handle(id).describe()).status.name !== 'RUNNING') return true;
  }
  return false;
}
