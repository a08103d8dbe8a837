import { Context } from '@temporalio/activity';

/** The running activity's context; undefined when the code runs outside an activity (tests, the CLI). */
function current(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` with the activity's cancellation signal and heartbeats while it runs, so a dead
 * worker is noticed within the heartbeat timeout and a cancelled activity stops its request.
 * Local activities have no heartbeat: they only get the signal.
 */
export async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>, intervalMs = 2_000): Promise<T> {
  const ctx = current();
  if (!ctx) return fn(new AbortController().signal);
  if (ctx.info.isLocal) return fn(ctx.cancellationSignal);
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), intervalMs);
  try {
    return await fn(ctx.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}

/** One heartbeat now: a short activity with a heartbeat timeout tells Temporal at once that a live worker has it. */
export function heartbeatOnce(): void {
  const ctx = current();
  if (ctx && !ctx.info.isLocal) ctx.heartbeat();
}
