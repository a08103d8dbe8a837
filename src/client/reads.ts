// Reads that never wait for a part that is away. Asking a session's workflow (a query) needs a
// worker to answer it: with none running it waits 30 s and fails, and with Temporal stopped the
// client retries for 18 s. So a read first takes what the session store has: an ended session is
// read from there alone (its last save is its final word: a session run again is marked running in
// the store before its new run starts). A running session is asked of its workflow only once a
// worker is known to be there; otherwise the store's copy answers at once, with a line naming what
// is away (the worker, or Temporal).
import type { Connection } from '@temporalio/client';
import type { AppConfig } from '../config/schema';
import type { ResearchEvent, ResearchSnapshot } from '../domain/types';
import { TERMINAL_STATUSES } from '../domain/types';
import { liveBuilds } from './builds';
import { isGone, ResearchError } from './errors';
import { NO_WORKER, TEMPORAL_AWAY, type Away } from './away';

export { awayAt, NO_WORKER, TEMPORAL_AWAY, type Away } from './away';

/** A session the store has no copy of, while the part that would answer for it is away. */
export class PartAwayError extends ResearchError {
  override name = 'PartAwayError';
  constructor(
    readonly away: Away,
    id: string,
  ) {
    super(`research ${id} is not in the session store, and ${away.message}`);
  }
}

export interface StateRead {
  state: ResearchSnapshot;
  /** Set when the state is the session store's copy because a part is away. */
  away?: Away;
}

export interface EventsRead {
  events: ResearchEvent[];
  away?: Away;
}

/** What the reads use of the research client (research-client.ts, which imports this file). */
export interface ReadsClient {
  readonly connection: Connection;
  readonly config: AppConfig;
  readonly engine: EngineCheck;
  sessions(): { get(id: string): Promise<ResearchSnapshot | undefined> };
  handle(id: string): { describe(): Promise<unknown> };
  state(id: string, opts?: { statusOnly?: boolean }): Promise<ResearchSnapshot>;
  events(id: string, afterSeq: number, options?: { stream?: boolean }): Promise<ResearchEvent[]>;
  storedEvents(id: string, afterSeq: number, options?: { stream?: boolean }): Promise<ResearchEvent[]>;
}

/** How long one check of the engine may take, and how long its answer is reused. */
export const ENGINE_CHECK_MS = 1_500;
const ENGINE_KEEP_MS = 2_000;

/**
 * Whether the engine can answer a query now, asked once for every read within a short interval:
 * Temporal answers within ENGINE_CHECK_MS and a worker of the task queue is alive (heartbeats and
 * pollers, a worker on this machine only while its process runs; ours starting counts as there).
 */
export class EngineCheck {
  private last: { at: number; answer: Promise<Away | undefined> } | undefined;

  /**
   * Whether a worker of ours is starting and has not polled yet (it counts as there). The local
   * runtime sets it (src/runtime/local.ts: the background worker's record); elsewhere none is.
   */
  workerStarting: () => boolean = () => false;

  constructor(private readonly client: Pick<ReadsClient, 'connection' | 'config'>) {}

  away(now = Date.now()): Promise<Away | undefined> {
    if (!this.last || now - this.last.at > ENGINE_KEEP_MS) this.last = { at: now, answer: this.check() };
    return this.last.answer;
  }

  /** Something changed (a worker was started here): ask again next time. */
  forget(): void {
    this.last = undefined;
  }

  private async check(): Promise<Away | undefined> {
    const { connection, config } = this.client;
    let workers = 0;
    try {
      const builds = await connection.withDeadline(Date.now() + ENGINE_CHECK_MS, () => liveBuilds(connection.workflowService, config.temporal.namespace, config.temporal.task_queue));
      for (const n of builds.values()) workers += n;
    } catch {
      return { part: 'temporal', message: TEMPORAL_AWAY };
    }
    return workers > 0 || this.workerStarting() ? undefined : { part: 'worker', message: NO_WORKER };
  }
}

const ended = (s: ResearchSnapshot | undefined): s is ResearchSnapshot => !!s && TERMINAL_STATUSES.includes(s.status);

/** No copy in the store while a part is away: an id Temporal does not know is unknown; else what is away. */
async function notStored(client: ReadsClient, id: string, away: Away): Promise<Error> {
  if (away.part === 'worker' && (await client.handle(id).describe().then(() => false, isGone))) return new ResearchError(`unknown research id ${id}`);
  return new PartAwayError(away, id);
}

/** The store's copy of a session, with its report's text (undefined when it has none or cannot be read). */
async function storedCopy(client: ReadsClient, id: string): Promise<ResearchSnapshot | undefined> {
  return client.sessions().get(id).catch(() => undefined);
}

/**
 * The session's state: an ended one from the store; a running one from its workflow when a worker
 * is there, else the store's copy with what is away. A session the store has not seen yet while a
 * part is away is a PartAwayError naming it.
 */
export async function readState(client: ReadsClient, id: string, opts: { statusOnly?: boolean } = {}): Promise<StateRead> {
  const stored = await storedCopy(client, id);
  if (ended(stored)) return { state: stored };
  const away = await client.engine.away();
  if (!away) return { state: await client.state(id, opts) };
  if (!stored) throw await notStored(client, id, away);
  return { state: stored, away };
}

/** Events after `afterSeq`: as readState decides, from the workflow or from the store. */
export async function readEvents(client: ReadsClient, id: string, afterSeq: number, options: { stream?: boolean } = {}): Promise<EventsRead> {
  const stored = await storedCopy(client, id);
  const away = ended(stored) ? undefined : await client.engine.away();
  if (!ended(stored) && !away) return { events: await client.events(id, afterSeq, options) };
  if (!stored) throw await notStored(client, id, away as Away);
  return { events: await client.storedEvents(id, afterSeq, options), ...(away ? { away } : {}) };
}
