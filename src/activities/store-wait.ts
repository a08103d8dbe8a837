// Stores as activities see them. A store that cannot be reached (the shared database stopped or
// restarting, the network between) is waited for inside the attempt: heartbeating, at a capped
// backoff, until it answers or the activity is cancelled. So what an activity already holds — a
// fetched page, a model's answer, a summary — is written once the store is back, and is never
// fetched or paid for again. Any other store error is thrown as it is. Outside an activity (the
// CLI, the API) calls go straight through.
import { Context } from '@temporalio/activity';
import type { StoreWait } from '../domain/types';
import { describeStoreError, isStoreUnavailable } from '../stores/unavailable';
import { storeFailure } from './errors';
import { withHeartbeat } from './heartbeat';

export interface StoreWaitEvent {
  store: string;
  /** Failed tries so far in this wait. */
  tries: number;
  error: string;
  waitedMs: number;
  phase: 'waiting' | 'back';
  activity: string;
  workflowId?: string;
  attempt: number;
}

export interface StoreWaitOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Heartbeats while waiting come at least this often (below every heartbeat timeout we use). */
  heartbeatEveryMs?: number;
  onWait?: (event: StoreWaitEvent) => void;
}

const DEFAULTS = { firstDelayMs: 500, maxDelayMs: 10_000, heartbeatEveryMs: 2_000 };

/** `store` with every method waiting out unavailability when called from an activity. */
export function waitingForStore<T extends object>(store: T, name: string, options: StoreWaitOptions = {}): T {
  const opts = { ...DEFAULTS, ...options };
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'close' || prop === 'constructor') return (value as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => untilAvailable(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args), name, opts);
    },
  });
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

async function untilAvailable<R>(op: () => Promise<R>, store: string, opts: typeof DEFAULTS & StoreWaitOptions): Promise<R> {
  const ctx = activityContext();
  if (!ctx) return op();
  const since = Date.now();
  let tries = 0;
  const report = (phase: StoreWaitEvent['phase'], error: string) =>
    opts.onWait?.({ store, tries, error, waitedMs: Date.now() - since, phase, activity: ctx.info.activityType, workflowId: ctx.info.workflowExecution?.workflowId, attempt: ctx.info.attempt });
  for (;;) {
    try {
      const result = await op();
      if (tries > 0) {
        report('back', '');
        if (!ctx.info.isLocal) ctx.heartbeat();
      }
      return result;
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      tries++;
      const error = describeStoreError(err);
      report('waiting', error);
      const details: { store_wait: StoreWait } = { store_wait: { store, tries, error, since: new Date(since).toISOString() } };
      // Sleeps in steps so the heartbeat timeout never passes while we wait; cancellation ends the wait.
      let left = Math.min(opts.maxDelayMs, opts.firstDelayMs * 2 ** (tries - 1));
      while (left > 0) {
        if (!ctx.info.isLocal) ctx.heartbeat(details);
        const step = Math.min(left, opts.heartbeatEveryMs);
        await ctx.sleep(step);
        left -= step;
      }
    }
  }
}

/**
 * A store step (persist a session, store a report version): heartbeats while it runs, so a dead
 * worker is noticed in seconds, and fails fast with its store errors classified (StoreUnavailable,
 * retried by Temporal without a maximum; StoreError, final after a few attempts).
 */
export async function storeStep<T>(what: string, store: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await withHeartbeat(() => fn(), 1_000);
  } catch (err) {
    throw storeFailure(err, what, attemptNow(), store);
  }
}

function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/** Each activity of `group` as a store step on `store` (its failures named by the activity). */
export function asStoreSteps<T extends Record<string, (input: never) => Promise<unknown>>>(group: T, store: string): T {
  return Object.fromEntries(Object.entries(group).map(([name, fn]) => [name, (input: never) => storeStep(name, store, () => fn(input))])) as T;
}
