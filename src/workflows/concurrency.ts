// The few concurrency parts the workflow is built from, each with its rule in one place: a pool
// of slots, a bounded parallel map, a value promised before it is known, the report's write queue,
// and how a promise awaited later is kept from being reported as unhandled.

/**
 * Slots for calls in flight, at most `limit`. Background work (report patches, the supervisor's
 * advice: nothing the research waits for) has a fixed share, half the slots, and a freed slot
 * goes to a waiting foreground call first; foreground calls may use every slot.
 */
export class Pool {
  private used = 0;
  private background = 0;
  private readonly waiting: { resume: () => void; background: boolean }[] = [];
  private readonly backgroundShare: number;

  constructor(private readonly limit: number) {
    this.backgroundShare = Math.max(1, Math.floor(limit / 2));
  }

  /** `first`: a call others wait on (a round's triage) is handed the next free slot. */
  async run<T>(fn: () => Promise<T>, opts: { background?: boolean; first?: boolean } = {}): Promise<T> {
    const background = opts.background === true;
    // A caller that waits is handed its slot by wake(), so none can take it in between.
    if (this.free(background)) this.take(background);
    else await new Promise<void>((resume) => (opts.first && !background ? this.waiting.unshift({ resume, background }) : this.waiting.push({ resume, background })));
    try {
      return await fn();
    } finally {
      this.used -= 1;
      if (background) this.background -= 1;
      this.wake();
    }
  }

  private take(background: boolean): void {
    this.used += 1;
    if (background) this.background += 1;
  }

  private free(background: boolean): boolean {
    return this.used < this.limit && (!background || this.background < this.backgroundShare);
  }

  /** Hands out the slots that are free: to foreground callers first, then background ones in turn. */
  private wake(): void {
    for (;;) {
      const fore = this.waiting.findIndex((w) => !w.background);
      const next = fore >= 0 && this.free(false) ? fore : this.waiting.findIndex((w) => w.background && this.free(true));
      if (next < 0) return;
      const [caller] = this.waiting.splice(next, 1);
      this.take(caller.background);
      caller.resume();
    }
  }
}

/**
 * Runs `fn` over `items` with at most `limit` in flight; results keep the input order. Every
 * started call is awaited before a failure is passed on, so nothing keeps running behind it.
 */
export async function settleAll<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.err;
  return results;
}

/** A value promised now and given later; giving it again changes nothing. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  private give!: (value: T) => void;
  constructor() {
    this.promise = new Promise<T>((resolve) => (this.give = resolve));
  }
  resolve(value: T): void {
    this.give(value);
  }
}

/**
 * A promise that is awaited later (by whoever needs its value, or at a join): its failure reaches
 * that awaiter. Until then it must not count as unhandled, which in a workflow fails the task.
 */
export function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.then(undefined, () => undefined);
  return promise;
}

/**
 * The living report's writes, applied one after another in the order they were queued (whatever
 * order their model calls finish in), so the report comes out the same on every run. A failed
 * write is kept for flush() and leaves its findings unreported (synthesis writes them); the writes
 * after it still run. Owned by the session: every phase that needs the report as written so far
 * flushes it, and the run flushes it before it ends.
 */
export class ReportQueue {
  /** The report's creation while it runs: everyone who needs the report waits for the same one. */
  creating: Promise<string> | undefined;
  /** The report as the writes queued before the current round leave it: the round's patches are proposed against it. */
  roundBase: Promise<string> | undefined;
  private tail: Promise<void> = Promise.resolve();
  private failure: { err: unknown } | undefined;

  queue(write: () => Promise<void>): void {
    this.tail = this.tail.then(() =>
      write().catch((err: unknown) => {
        this.failure ??= { err };
      }),
    );
  }

  /** Once every write queued so far has run (never fails: failures wait for flush). */
  written(): Promise<void> {
    return this.tail;
  }

  /** Every write queued so far applied; the first failure since the last flush is thrown here. */
  /** Once every write queued so far is done; a failure is left for flush() to pass on. */
  async settled(): Promise<void> {
    await this.tail;
  }

  async flush(): Promise<void> {
    await this.tail;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.err;
  }
}
