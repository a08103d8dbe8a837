// The rate limiter's counts in the service store's database, so N `serve` replicas on one store
// enforce one limit (a per-process count let the 2-replica manifest double it). While the database
// cannot be reached, each replica counts alone (the limit per replica) rather than letting every
// request through or refusing every one.
import type { SharedLimits } from '../stores/limits';
import { windowStart } from '../stores/limits';

type Callback = (err: Error | null, res: { current: number; ttl: number }) => void;

/**
 * A store for @fastify/rate-limit (its `store` option): counts shared through `limits`. Replicas
 * share a count only when they enforce the same limit (`max` is part of the key): during a rollout
 * that changes the limit, the old and new replicas do not count against each other's bound.
 */
export function sharedRateLimitStore(limits: SharedLimits, max: number, onFallback: (err: unknown) => void = () => undefined) {
  const local = new Map<string, { start: number; count: number }>();
  const countLocally = (key: string, windowMs: number, now: number) => {
    const start = windowStart(now, windowMs);
    const entry = local.get(key);
    const next = entry && entry.start === start ? { start, count: entry.count + 1 } : { start, count: 1 };
    local.set(key, next);
    if (local.size > 10_000) local.delete(local.keys().next().value as string);
    return { current: next.count, ttl: start + windowMs - now };
  };
  return class SharedRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      const now = Date.now();
      limits.hit(`rate:${max}:${key}`, timeWindow, now).then(
        (w) => callback(null, { current: w.count, ttl: w.resetMs }),
        (err: unknown) => {
          onFallback(err);
          callback(null, countLocally(key, timeWindow, now));
        },
      );
    }

    child(): SharedRateLimitStore {
      return this;
    }
  };
}
