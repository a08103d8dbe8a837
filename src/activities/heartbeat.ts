import { Context } from '@temporalio/activity';

/**
 * Runs `fn` with the activity's cancellation signal and heartbeats while it runs, so a dead
 * worker is noticed within the heartbeat timeout and a cancelled activity stops its request.
 */
export async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>, intervalMs = 2_000): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), intervalMs);
  try {
    return await fn(ctx.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}
