// The door to the engine for event streams. A new session watcher waits its turn in one queue,
// first come first served, at most `perSecond` let through each second (after a burst of `burst`);
// every engine call of the watchers runs with at most `concurrent` in flight. A reconnect storm of
// a thousand streams then reaches the engine as a steady trickle of one call per session, and the
// API's other requests keep their share of the engine.

export interface AdmissionOptions {
  perSecond: number;
  burst: number;
  concurrent: number;
}

export const DEFAULT_ADMISSION: AdmissionOptions = { perSecond: 10, burst: 10, concurrent: 4 };

export class Admission {
  private tokens: number;
  private updated = Date.now();
  private inFlight = 0;
  private readonly rateQueue: (() => void)[] = [];
  private readonly callQueue: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Watchers let in so far, and the longest any waited (figures). */
  admitted = 0;
  longestWaitMs = 0;

  constructor(private readonly options: AdmissionOptions = DEFAULT_ADMISSION) {
    this.tokens = options.burst;
  }

  /** Resolves when a new watcher may start: the rate's turn, in order of asking. */
  async enter(): Promise<void> {
    const asked = Date.now();
    await new Promise<void>((resolve) => {
      this.rateQueue.push(resolve);
      this.pumpRate();
    });
    this.admitted++;
    this.longestWaitMs = Math.max(this.longestWaitMs, Date.now() - asked);
  }

  /** Runs an engine call with at most `concurrent` in flight. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.options.concurrent) await new Promise<void>((resolve) => this.callQueue.push(resolve));
    else this.inFlight++;
    try {
      return await call();
    } finally {
      const next = this.callQueue.shift();
      // The slot passes straight to the next call waiting, or is given back.
      if (next) next();
      else this.inFlight--;
    }
  }

  /** Watchers waiting to start. */
  get waiting(): number {
    return this.rateQueue.length;
  }

  private pumpRate(): void {
    const now = Date.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((now - this.updated) / 1000) * this.options.perSecond);
    this.updated = now;
    while (this.rateQueue.length && this.tokens >= 1) {
      this.tokens -= 1;
      (this.rateQueue.shift() as () => void)();
    }
    if (this.rateQueue.length && !this.timer) {
      const wait = Math.ceil(((1 - this.tokens) / this.options.perSecond) * 1000);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pumpRate();
      }, Math.max(1, wait));
      this.timer.unref();
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
