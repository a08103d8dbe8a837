// The session-wide cap on model calls in flight (max_model_calls_in_flight): parallel branches,
// the report lane and the supervisor share it. No search or fetch ability here: oversight uses it.
import type { ResearchSession } from '../session';

export const DEFAULT_MAX_MODEL_CALLS_IN_FLIGHT = 4;

/** Counts model calls in flight and makes extra callers wait their turn, first come first served. */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.used >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.used += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.used -= 1;
    }
  }
}

const slots = new WeakMap<ResearchSession, Slots>();

/** Runs one model-calling step within the session-wide cap on model calls in flight. */
export function modelCall<T>(s: ResearchSession, fn: () => Promise<T>): Promise<T> {
  let cap = slots.get(s);
  if (!cap) slots.set(s, (cap = new Slots(s.settings.max_model_calls_in_flight ?? DEFAULT_MAX_MODEL_CALLS_IN_FLIGHT)));
  return cap.run(fn);
}

